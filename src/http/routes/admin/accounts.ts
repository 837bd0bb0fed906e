import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import {
  AccountCreatedSchema,
  AccountCreateSchema,
  RotatedKeySchema,
  TermsResultSchema,
  TermsSchema,
  UserParams,
  WriteApprovalResultSchema,
  WriteApprovalSchema,
  WritesResultSchema,
  WritesSchema,
} from '../../schemas/admin/accounts.ts'
import { createAccount, rotateKey, setTermsAccepted, setWriteApproval, setWritesEnabled } from '../../../services/accounts.ts'

const tags = ['accounts']

/** Advertiser accounts: creation, the write prerequisites, the API key. */
export function adminAccountRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/accounts',
      {
        schema: {
          summary: 'Create an advertiser',
          description: 'A new account with a live API key; writes wait for write approval, API terms and billing enrollment.',
          tags,
          body: AccountCreateSchema,
          response: { 201: AccountCreatedSchema },
        },
      },
      async (request, reply) => reply.code(201).send(await createAccount(deps, request.body)),
    )

    app.post(
      '/accounts/:user_id/write-approval',
      {
        schema: {
          summary: 'Set manual write approval',
          tags,
          params: UserParams,
          body: WriteApprovalSchema,
          response: { 200: WriteApprovalResultSchema, ...errors(404) },
        },
      },
      async (request) => {
        const a = await setWriteApproval(deps, request.params.user_id, request.body.approved)
        return { user_id: a.user_id, write_approved: a.write_approved }
      },
    )

    app.post(
      '/accounts/:user_id/terms',
      {
        schema: {
          summary: 'Record API terms acceptance',
          description: 'Normally the advertiser accepts the terms in the portal.',
          tags,
          params: UserParams,
          body: TermsSchema,
          response: { 200: TermsResultSchema, ...errors(404) },
        },
      },
      async (request) => {
        const a = await setTermsAccepted(deps, request.params.user_id, request.body.accepted)
        return { user_id: a.user_id, terms_accepted: a.terms_accepted }
      },
    )

    // Addition to operations.md: the operator switch behind access.campaign_writes = `disabled`.
    app.post(
      '/accounts/:user_id/writes',
      {
        schema: {
          summary: "Switch an account's writes on or off",
          tags,
          params: UserParams,
          body: WritesSchema,
          response: { 200: WritesResultSchema, ...errors(404) },
        },
      },
      async (request) => {
        const a = await setWritesEnabled(deps, request.params.user_id, request.body.enabled)
        return { user_id: a.user_id, writes_enabled: !a.writes_disabled }
      },
    )

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
      async (request) => rotateKey(deps, request.params.user_id),
    )
  }
}
