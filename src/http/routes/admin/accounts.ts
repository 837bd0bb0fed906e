import type { Static, TSchema } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import {
  AccountCreatedSchema,
  AccountCreateSchema,
  AccountListSchema,
  AccountSearchQuery,
  OperatorAccountSchema,
  RotatedKeySchema,
  TermsResultSchema,
  TermsSchema,
  UserParams,
  WriteApprovalResultSchema,
  WriteApprovalSchema,
  WritesResultSchema,
  WritesSchema,
} from '../../schemas/admin/accounts.ts'
import { sendSetPasswordLink } from '../../../services/password-links.ts'
import { emailContext } from '../../email-context.ts'
import type { EmailContext } from '../../../services/email.ts'
import { asOperator } from '../../operator-context.ts'
import { presentAccountListItem, presentOperatorAccount } from '../../presenters.ts'
import type { Audited } from '../../../services/audit.ts'
import { createAccount, rotateKey, setTermsAccepted, setWriteApproval, setWritesEnabled } from '../../../services/operator-actions.ts'
import { findAccounts, readOperatorAccount } from '../../../services/operator-accounts.ts'

const tags = ['accounts']

interface SwitchDoc<B extends TSchema, R extends TSchema> {
  summary: string
  description?: string
  body: B
  result: R
}

/** `POST /accounts/:user_id/<name>`: one of an account's switches, set from the body; unknown accounts are 404. */
function accountSwitch<B extends TSchema, R extends TSchema>(
  app: App,
  deps: RouteDeps,
  name: string,
  { summary, description, body, result }: SwitchDoc<B, R>,
  set: (ctx: RouteDeps & Audited & EmailContext, userId: string, body: Static<B>) => Promise<Static<R>>,
) {
  const schema = {
    summary,
    ...(description === undefined ? {} : { description }),
    tags,
    params: UserParams,
    body,
    // Widened: the route's types come from `set`, which the generic schema cannot give Fastify.
    response: { 200: result as TSchema, ...errors(404) },
  }
  app.post(`/accounts/:user_id/${name}`, { schema }, async (request) =>
    set({ ...asOperator(deps, request), log: request.log }, request.params.user_id, request.body as Static<B>),
  )
}

/** Advertiser accounts: creation, the write prerequisites, the API key. */
export function adminAccountRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/accounts',
      {
        schema: {
          summary: 'Create an advertiser',
          description:
            'A new account with a live API key; writes wait for write approval, API terms and billing enrollment. The account\'s ' +
            'email is sent a link (seven days, one use) to set the password of its portal sign-in; the outbox keeps it. One account ' +
            'per email, compared case-insensitively: an address another account has (made here, in the console or by self-sign-up) ' +
            'is 409 `{field: "email", reason: "email_taken", user_id}` naming that account, and nothing is created or emailed.',
          tags,
          body: AccountCreateSchema,
          response: { 201: AccountCreatedSchema, ...errors(409) },
        },
      },
      async (request, reply) => {
        const created = await createAccount(asOperator(deps, request), request.body)
        // operations.md section 5: an account an operator made gets a link to set its portal password.
        await sendSetPasswordLink(emailContext(deps, request), created.user_id)
        return reply.code(201).send(created)
      },
    )

    app.get(
      '/accounts',
      {
        schema: {
          summary: 'Find advertisers',
          description:
            'Accounts whose email contains `query` (case-insensitive) or whose user id is `query` exactly, newest first, one page at a ' +
            'time (`limit`, `cursor` as in the advertiser API\'s lists). No query: every account.',
          tags,
          querystring: AccountSearchQuery,
          response: { 200: AccountListSchema },
        },
      },
      async (request) => {
        const { query, limit, cursor } = request.query
        const page = await findAccounts(deps, query, { limit, cursor })
        return { accounts: page.items.map(presentAccountListItem), next_cursor: page.nextCursor }
      },
    )

    app.get(
      '/accounts/:user_id',
      {
        schema: {
          summary: "An advertiser's operator view",
          description: 'Access (what blocks writes, in the order of `access.campaign_writes`), billing, collection status, balance and invoices.',
          tags,
          params: UserParams,
          response: { 200: OperatorAccountSchema, ...errors(404) },
        },
      },
      async (request) => presentOperatorAccount(await readOperatorAccount(deps, request.params.user_id)),
    )

    const writeApproval = { summary: 'Set manual write approval', body: WriteApprovalSchema, result: WriteApprovalResultSchema }
    accountSwitch(app, deps, 'write-approval', writeApproval, async (ctx, userId, { approved }) => {
      const a = await setWriteApproval(ctx, userId, approved)
      return { user_id: a.user_id, write_approved: a.write_approved }
    })

    const terms = {
      summary: 'Record API terms acceptance',
      description:
        'Normally the advertiser accepts the terms in the portal. Records the current terms version and the service time ' +
        '(`access.terms_version` of GET /v1/account); accepting again the version already accepted keeps the first record.',
      body: TermsSchema,
      result: TermsResultSchema,
    }
    accountSwitch(app, deps, 'terms', terms, async (ctx, userId, { accepted }) => {
      const a = await setTermsAccepted(ctx, userId, accepted)
      return { user_id: a.user_id, terms_accepted: a.terms_accepted }
    })

    // Addition to operations.md: the operator switch behind access.campaign_writes = `disabled`.
    const writes = { summary: "Switch an account's writes on or off", body: WritesSchema, result: WritesResultSchema }
    accountSwitch(app, deps, 'writes', writes, async (ctx, userId, { enabled }) => {
      const a = await setWritesEnabled(ctx, userId, enabled)
      return { user_id: a.user_id, writes_enabled: !a.writes_disabled }
    })

    app.post(
      '/accounts/:user_id/rotate-key',
      {
        schema: {
          summary: 'Issue a new API key',
          description: 'The old key stops working at once.',
          tags,
          params: UserParams,
          response: { 200: RotatedKeySchema, ...errors(404) },
        },
      },
      async (request) => rotateKey(asOperator(deps, request), request.params.user_id),
    )
  }
}
