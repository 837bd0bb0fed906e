import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App, RouteDeps } from '../../types.ts'
import { RevealKeyForm, RotateKeyForm } from '../../schemas/pages/forms.ts'
import { KeyPage, type KeyFacts, type ShownKey } from '../../pages/portal/key.tsx'
import type { AccountRow } from '../../../services/read-models.ts'
import { requireAccount } from '../../../services/accounts.ts'
import { keyRevealable } from '../../../services/key-sealing.ts'
import { revealApiKey, rotateOwnApiKey } from '../../../services/key-reveal.ts'
import type { PasswordRefusal } from '../../../services/sign-in.ts'

const hide = { hide: true } as const

/**
 * `/portal/key` (operations.md section 5): the user id and the masked key;
 * "Reveal" and "Rotate" each re-check the password (under the sign-in
 * lockout), and a refusal is said next to that form's Password field;
 * "Rotate" then makes the operator API's rotation. A key in full is only
 * ever in the answer to a POST, never in a URL, and pages are sent `no-store`.
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
    extra: { shown?: ShownKey; passwordError?: string; rotatePasswordError?: string; formError?: string } = {},
    status = 200,
  ) {
    return reply.page(KeyPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, facts: await facts(account), ...extra }), status)
  }

  return async (app: App) => {
    app.get('/portal/key', { schema: hide }, async (request, reply) => render(request, reply, request.advertiser))

    app.post('/portal/key/reveal', { schema: { ...hide, body: RevealKeyForm } }, async (request, reply) => {
      const account = request.advertiser
      const result = await revealApiKey(deps, account.user_id, request.body.password, request.clientAddress)
      if (result.ok) return render(request, reply, account, { shown: { key: result.apiKey, how: 'revealed' } })
      if (result.reason === 'not_revealable') return render(request, reply, account, { formError: 'This key cannot be revealed. Rotate it to get one that can.' }, 409)
      return refused(request, reply, account, result, 'passwordError')
    })

    app.post('/portal/key/rotate', { schema: { ...hide, body: RotateKeyForm } }, async (request, reply) => {
      const account = request.advertiser
      const result = await rotateOwnApiKey(deps, account.user_id, request.body.password, request.clientAddress)
      if (!result.ok) return refused(request, reply, account, result, 'rotatePasswordError')
      // Read again: the page shows the new prefix and a fresh "last used".
      return render(request, reply, await requireAccount(deps, account.user_id), { shown: { key: result.apiKey, how: 'rotated' } })
    })
  }

  /** A password the key page refused, said next to the Password field of the form that sent it. */
  function refused(request: FastifyRequest, reply: FastifyReply, account: AccountRow, refusal: PasswordRefusal, at: 'passwordError' | 'rotatePasswordError') {
    const unchanged = at === 'rotatePasswordError' ? ' The key was not rotated.' : ''
    if (refusal.reason === 'locked') {
      const minutes = Math.ceil(refusal.retryAfterS / 60)
      reply.header('retry-after', String(refusal.retryAfterS))
      return render(request, reply, account, { [at]: `Too many wrong passwords from your network. Try again in ${minutes} minutes.${unchanged}` }, 429)
    }
    return render(request, reply, account, { [at]: `That is not your password.${unchanged}` }, 400)
  }
}
