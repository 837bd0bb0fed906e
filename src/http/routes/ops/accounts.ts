import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static, type TSchema } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { EmptyForm } from '../../schemas/pages/forms.ts'
import { AccountCreateForm, CardForm, CreditForm, HoldForm, Net30Form, SwitchForm, UnlockForm } from '../../schemas/pages/ops-forms.ts'
import { AccountCreateSchema, TermsSchema, WriteApprovalSchema, WritesSchema } from '../../schemas/admin/accounts.ts'
import { BillingEnrollSchema, CollectionHoldSchema, CreditCreateSchema } from '../../schemas/admin/billing.ts'
import { UnlockSchema } from '../../schemas/admin/access.ts'
import { AccountPage, AccountsPage, KeyRotatedPage, type FormValues } from '../../pages/ops/accounts.tsx'
import type { FieldErrors } from '../../pages/ops/messages.ts'
import { asOperator } from '../../operator-context.ts'
import { presentAccountListItem, presentOperatorAccount } from '../../presenters.ts'
import { findAccounts, readOperatorAccount } from '../../../services/operator-accounts.ts'
import { sendSetPasswordLink } from '../../../services/password-links.ts'
import { emailContext } from '../../email-context.ts'
import * as actions from '../../../services/operator-actions.ts'
import { attemptBody, booleanOf, integerOf, type Attempt } from './forms.ts'
import { frameOf } from './session.ts'

const hide = { hide: true } as const
const UserParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 64 }) })
const Notice = Type.Optional(Type.String({ maxLength: 40 }))

type Params = { user_id: string }

/** The console's accounts: search, the account page, and every account action (the same audited use cases as the operator API). */
export function opsAccountRoutes(deps: RouteDeps) {
  return async (app: App) => {
    const listQuery = Type.Object({
      query: Type.Optional(Type.String({ maxLength: 254 })),
      // "Pending approval only": a checkbox, sent as "on" when ticked.
      pending: Type.Optional(Type.String({ maxLength: 8 })),
      cursor: Type.Optional(Type.String({ maxLength: 512 })),
      notice: Notice,
    })
    const ctx = (request: FastifyRequest) => asOperator(deps, request)

    async function accountsPage(request: FastifyRequest, reply: FastifyReply, q: Static<typeof listQuery>, create?: { values: FormValues; errors: FieldErrors }, status = 200) {
      const query = q.query?.trim() ?? ''
      const pending = q.pending !== undefined && q.pending !== ''
      const page = await findAccounts(deps, query, { cursor: q.cursor }, pending)
      const next =
        page.nextCursor === null
          ? null
          : `/ops/accounts?${new URLSearchParams({ ...(query ? { query } : {}), ...(pending ? { pending: 'on' } : {}), cursor: page.nextCursor }).toString()}`
      const frame = frameOf(deps, request, reply, q.notice)
      return reply.page(AccountsPage({ frame, query, pending, accounts: page.items.map(presentAccountListItem), next, create }), status)
    }

    app.get('/ops/accounts', { schema: { ...hide, querystring: listQuery } }, async (request, reply) => accountsPage(request, reply, request.query))

    // "Create an account": the operator API's create (the same audited use case and set-password email); refused, the list again with the error at its field.
    app.post('/ops/accounts', { schema: { ...hide, body: AccountCreateForm } }, async (request, reply) => {
      const email = request.body.email.trim()
      const billingEmail = request.body.billing_email?.trim() ?? ''
      const result = await attemptBody(AccountCreateSchema, { email, ...(billingEmail === '' ? {} : { billing_email: billingEmail }) }, async (body) => {
        const created = await actions.createAccount(ctx(request), body)
        await sendSetPasswordLink(emailContext(deps, request), created.user_id)
        return created.user_id
      })
      if (result.ok) return reply.redirect(`/ops/accounts/${result.value}?notice=account_created`, 303)
      return accountsPage(request, reply, {}, { values: { email, billing_email: billingEmail }, errors: result.errors }, result.status)
    })

    /** Renders the account page, with the errors and typed values of a refused form. */
    async function accountPage(request: FastifyRequest, reply: FastifyReply, userId: string, status = 200, errors?: FieldErrors, values?: FormValues) {
      const account = presentOperatorAccount(await readOperatorAccount(deps, userId))
      const notice = (request.query as { notice?: string } | undefined)?.notice
      return reply.page(AccountPage({ frame: frameOf(deps, request, reply, notice), account, errors, values }), status)
    }

    app.get<{ Params: Params }>('/ops/accounts/:user_id', { schema: { ...hide, params: UserParams, querystring: Type.Object({ notice: Notice }) } }, async (request, reply) =>
      accountPage(request, reply, request.params.user_id),
    )

    /** A form on the account page: on success back to the page with a notice, else the page again with the errors. */
    function accountForm<B extends TSchema>(path: string, body: B, act: (request: FastifyRequest<{ Params: Params }>, form: Static<B>) => Promise<Attempt<string>>) {
      app.post<{ Params: Params }>(`/ops/accounts/:user_id/${path}`, { schema: { ...hide, params: UserParams, body } }, async (request, reply) => {
        const form = request.body as Static<B>
        const result = await act(request, form)
        if (result.ok) return reply.redirect(`/ops/accounts/${request.params.user_id}?notice=${result.value}`, 303)
        // A refused form keeps what was typed, never a card number.
        const values: FormValues = Object.fromEntries(Object.entries(form as Record<string, string>).filter(([name]) => name !== '_csrf' && name !== 'card_number'))
        return accountPage(request, reply, request.params.user_id, result.status, result.errors, values)
      })
    }

    accountForm('write-approval', SwitchForm, async (request, form) =>
      attemptBody(WriteApprovalSchema, { approved: booleanOf(form.value) }, async (body) => {
        await actions.setWriteApproval({ ...ctx(request), log: request.log }, request.params.user_id, body.approved)
        return 'write_approval'
      }),
    )
    accountForm('terms', SwitchForm, async (request, form) =>
      attemptBody(TermsSchema, { accepted: booleanOf(form.value) }, async (body) => {
        await actions.setTermsAccepted(ctx(request), request.params.user_id, body.accepted)
        return 'terms'
      }),
    )
    accountForm('writes', SwitchForm, async (request, form) =>
      attemptBody(WritesSchema, { enabled: booleanOf(form.value) }, async (body) => {
        await actions.setWritesEnabled(ctx(request), request.params.user_id, body.enabled)
        return 'writes'
      }),
    )

    const [weeklyBranch, net30Branch] = BillingEnrollSchema.anyOf
    accountForm('billing/card', CardForm, async (request, form) =>
      attemptBody(weeklyBranch, { mode: 'weekly_autopay', card_number: form.card_number.trim() }, async (body) => {
        await actions.enrollBilling(ctx(request), deps.processor, request.params.user_id, body)
        return 'billing'
      }),
    )
    accountForm('billing/net30', Net30Form, async (request, form) =>
      attemptBody(net30Branch, { mode: 'net30_invoice', credit_limit_cents: integerOf(form.credit_limit_cents) }, async (body) => {
        await actions.enrollBilling(ctx(request), deps.processor, request.params.user_id, body)
        return 'billing'
      }),
    )
    accountForm('hold', HoldForm, async (request, form) =>
      attemptBody(CollectionHoldSchema, { hold: form.hold === 'none' ? null : form.hold }, async (body) => {
        await actions.setCollectionHold(ctx(request), request.params.user_id, body.hold)
        return 'hold'
      }),
    )
    accountForm('credits', CreditForm, async (request, form) =>
      attemptBody(CreditCreateSchema, { amount_cents: integerOf(form.amount_cents), memo: form.memo.trim() }, async (body) => {
        await actions.postCredit(ctx(request), request.params.user_id, body.amount_cents, body.memo)
        return 'credit'
      }),
    )
    accountForm('unlock', UnlockForm, async (request, form) =>
      attemptBody(UnlockSchema, { address: form.address.trim() }, async (body) =>
        (await actions.unlockAddress(ctx(request), body.address)).lifted.length > 0 ? 'unlocked' : 'not_locked',
      ),
    )

    // The new key is shown once, on the answer to the form itself (never in a redirect's address).
    app.post<{ Params: Params }>('/ops/accounts/:user_id/rotate-key', { schema: { ...hide, params: UserParams, body: EmptyForm } }, async (request, reply) => {
      const { user_id } = request.params
      const { api_key } = await actions.rotateKey(ctx(request), user_id)
      const { account } = await readOperatorAccount(deps, user_id)
      return reply.page(KeyRotatedPage({ frame: frameOf(deps, request, reply), userId: user_id, email: account.email, apiKey: api_key }))
    })
  }
}
