import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App, RouteDeps } from '../../types.ts'
import { EmptyForm, RevealKeyForm } from '../../schemas/pages/forms.ts'
import { KeyPage, type KeyFacts, type ShownKey } from '../../pages/portal/key.tsx'
import type { AccountRow } from '../../../services/read-models.ts'
import { requireAccount, rotateKey } from '../../../services/accounts.ts'
import { keyRevealable } from '../../../services/key-sealing.ts'
import { revealApiKey } from '../../../services/key-reveal.ts'

const hide = { hide: true } as const

/**
 * `/portal/key` (operations.md section 5): the user id and the masked key;
 * "Reveal" re-checks the password (under the sign-in lockout); "Rotate" calls
 * the operator API's rotateKey. A key in full is only ever in the answer to
 * a POST, never in a URL, and pages are sent `no-store`.
 */
export function portalKeyRoutes(deps: RouteDeps) {
  async function facts(account: AccountRow): Promise<KeyFacts> {
    return {
      userId: account.user_id,
      keyPrefix: account.key_prefix,
      keyCreatedAt: account.key_created_at,
      keyLastUsedAt: account.key_last_used_at,
      revealable: await keyRevealable(deps, account),
    }
  }

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    account: AccountRow,
    extra: { shown?: ShownKey; passwordError?: string; formError?: string } = {},
    status = 200,
  ) {
    return reply.page(KeyPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, facts: await facts(account), ...extra }), status)
  }

  return async (app: App) => {
    app.get('/portal/key', { schema: hide }, async (request, reply) => render(request, reply, request.advertiser))

    app.post('/portal/key/reveal', { schema: { ...hide, body: RevealKeyForm } }, async (request, reply) => {
      const account = request.advertiser
      const result = await revealApiKey(deps, account.user_id, request.body.password, request.ip)
      if (result.ok) return render(request, reply, account, { shown: { key: result.apiKey, how: 'revealed' } })
      if (result.reason === 'not_revealable') return render(request, reply, account, { formError: 'This key cannot be revealed. Rotate it to get one that can.' }, 409)
      if (result.reason === 'locked') {
        const minutes = Math.ceil(result.retryAfterS / 60)
        reply.header('retry-after', String(result.retryAfterS))
        return render(request, reply, account, { passwordError: `Too many wrong passwords from your network. Try again in ${minutes} minutes.` }, 429)
      }
      return render(request, reply, account, { passwordError: 'That is not your password.' }, 400)
    })

    app.post('/portal/key/rotate', { schema: { ...hide, body: EmptyForm } }, async (request, reply) => {
      const { api_key } = await rotateKey(deps, request.advertiser.user_id)
      // Read again: the page shows the new prefix and a fresh "last used".
      return render(request, reply, await requireAccount(deps, request.advertiser.user_id), { shown: { key: api_key, how: 'rotated' } })
    })
  }
}
