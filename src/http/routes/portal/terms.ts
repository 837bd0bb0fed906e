import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { EmptyForm } from '../../schemas/pages/forms.ts'
import { TermsPage } from '../../pages/portal/terms.tsx'
import { portalNotice } from '../../pages/portal/notices.ts'
import { readAccountOverview, setTermsAccepted } from '../../../services/accounts.ts'
import { presentAccount } from '../../presenters.ts'
import { TERMS_TEXT, TERMS_TITLE, TERMS_VERSION } from '../../../domain/terms.ts'

const hide = { hide: true } as const

/** `/portal/terms` (operations.md section 5): the versioned terms; "Accept" records version and time like the operator's terms call. */
export function portalTermsRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/portal/terms', { schema: { ...hide, querystring: Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) }) } }, async (request, reply) => {
      const a = request.advertiser
      const { access } = presentAccount(a, await readAccountOverview(deps, a.user_id))
      return reply.page(
        TermsPage({
          csrf: reply.generateCsrf(),
          email: a.email,
          terms: { title: TERMS_TITLE, version: TERMS_VERSION, paragraphs: TERMS_TEXT },
          accepted: a.terms_accepted ? { version: a.terms_version, at: a.terms_accepted_at } : null,
          notice: portalNotice(request.query.notice),
          access,
        }),
      )
    })

    app.post('/portal/terms/accept', { schema: { ...hide, body: EmptyForm } }, async (request, reply) => {
      await setTermsAccepted(deps, request.advertiser.user_id, true)
      return reply.redirect('/portal/terms?notice=terms_accepted', 303)
    })
  }
}
