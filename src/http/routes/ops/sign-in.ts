import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { EmptyForm } from '../../schemas/pages/forms.ts'
import { OpsLoginForm, OpsSetupForm } from '../../schemas/pages/ops-forms.ts'
import { OpsLoginPage, OpsSetupPage } from '../../pages/ops/sign-in.tsx'
import { opsNotice } from '../../pages/ops/notices.ts'
import { ErrorPage } from '../../pages/error-page.tsx'
import { endSession } from '../../../services/sessions.ts'
import { setUpFirstOperator, setupOpen, signInOperator } from '../../../services/operators.ts'
import { clearOpsCookie, opsCookieName, safeOpsNext, setOpsCookie } from './session.ts'

const hide = { hide: true } as const
const CLOSED = 'The console is already set up: operators sign in with their own accounts.'

/** Console setup, sign-in and sign-out (operations.md section 5). No session needed. */
export function opsSignInRoutes(deps: RouteDeps) {
  return async (app: App) => {
    const closed = (reply: FastifyReply) =>
      reply.page(ErrorPage({ status: 404, message: CLOSED, home: { href: '/ops/login', label: 'Go to the operator sign-in' } }), 404)

    app.get('/ops/setup', { schema: hide }, async (_request, reply) => {
      if (!(await setupOpen(deps))) return closed(reply)
      return reply.page(OpsSetupPage({ csrf: reply.generateCsrf() }))
    })

    app.post('/ops/setup', { schema: { ...hide, body: OpsSetupForm } }, async (request, reply) => {
      const { token, email, password } = request.body
      const result = await setUpFirstOperator(deps, { token, email, password }, request.clientAddress)
      if (result.ok) {
        setOpsCookie(deps, reply, result.sessionToken)
        return reply.redirect('/ops/accounts?notice=setup_done', 303)
      }
      if (result.closed) return closed(reply)
      if (result.retryAfterS !== undefined) reply.header('retry-after', String(result.retryAfterS))
      const status = result.retryAfterS !== undefined ? 429 : result.errors.token ? 403 : 400
      return reply.page(OpsSetupPage({ csrf: reply.generateCsrf(), email, errors: result.errors }), status)
    })

    const loginQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2_000 })), notice: Type.Optional(Type.String({ maxLength: 40 })) })
    app.get('/ops/login', { schema: { ...hide, querystring: loginQuery } }, async (request, reply) =>
      reply.page(
        OpsLoginPage({ csrf: reply.generateCsrf(), next: request.query.next, notice: opsNotice(request.query.notice), setupOpen: await setupOpen(deps) }),
      ),
    )

    app.post('/ops/login', { schema: { ...hide, body: OpsLoginForm } }, async (request, reply) => {
      const { email, password, next } = request.body
      const result = await signInOperator(deps, { email, password }, request.clientAddress)
      if (result.ok) {
        setOpsCookie(deps, reply, result.sessionToken)
        return reply.redirect(safeOpsNext(next), 303)
      }
      const csrf = reply.generateCsrf()
      if (result.reason === 'locked') {
        reply.header('retry-after', String(result.retryAfterS))
        const error = `Too many failed sign-ins from your network. Try again in ${Math.ceil(result.retryAfterS / 60)} minutes.`
        return reply.page(OpsLoginPage({ csrf, email, next, error, setupOpen: false }), 429)
      }
      return reply.page(OpsLoginPage({ csrf, email, next, error: 'That email and password do not match an operator.', setupOpen: false }), 401)
    })

    app.post('/ops/logout', { schema: { ...hide, body: EmptyForm } }, async (request, reply) => {
      await endSession(deps, request.cookies[opsCookieName(deps)])
      clearOpsCookie(deps, reply)
      return reply.redirect('/ops/login?notice=signed_out', 303)
    })
  }
}
