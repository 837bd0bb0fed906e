import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { BillingProfileSchema } from '../../schemas/account.ts'
import { UserParams } from '../../schemas/admin/accounts.ts'
import { BillingEnrollSchema, CollectionHoldSchema, CreditCreateSchema, CreditSchema } from '../../schemas/admin/billing.ts'
import { presentBillingProfile } from '../../presenters.ts'
import { asOperator } from '../../operator-context.ts'
import { completeAuthentication, enrollBilling, postCredit, requestNet30, setCollectionHold } from '../../../services/operator-actions.ts'

const tags = ['billing']
const profile = { 200: BillingProfileSchema, ...errors(404, 409) }

/** Billing enrollment, the billing states an operator moves an account through (docs/billing.md), credits. */
export function adminBillingRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/accounts/:user_id/billing',
      {
        schema: {
          summary: 'Enroll billing through the payment processor',
          description:
            'Weekly auto-pay or legacy semi-monthly auto-pay with a card, or Net 30 invoicing with a credit limit (approves a Net 30 ' +
            'request). Failed or held card charges are retried on the new card; moving to Net 30 reopens unpaid invoices as Net 30. ' +
            'A card the processor refuses is 400 `card_rejected_by_processor`.',
          tags,
          params: UserParams,
          body: BillingEnrollSchema,
          response: { 200: BillingProfileSchema, ...errors(404) },
        },
      },
      async (request) =>
        presentBillingProfile(await enrollBilling(asOperator(deps, request), deps.processor, request.params.user_id, request.body), deps.clock.now()),
    )

    // Stands for the advertiser asking for Net 30 in the portal; POST .../billing with Net 30 approves it.
    app.post(
      '/accounts/:user_id/billing/net30-request',
      {
        schema: {
          summary: 'Record a Net 30 request',
          description: 'Stands for the advertiser asking in the portal; 409 `already_net30` when the account is on Net 30.',
          tags,
          params: UserParams,
          response: profile,
        },
      },
      async (request) => presentBillingProfile(await requestNet30(asOperator(deps, request), request.params.user_id), deps.clock.now()),
    )

    // Stands for the card holder completing the processor's authentication (3-D Secure) in the portal.
    app.post(
      '/accounts/:user_id/billing/authenticate',
      {
        schema: {
          summary: "Complete the card holder's authentication",
          description:
            'Stands for the holder completing 3-D Secure in the portal: confirms the card setup and completes held charges; 409 ' +
            '`nothing_to_authenticate` when nothing waits for it.',
          tags,
          params: UserParams,
          response: profile,
        },
      },
      async (request) => presentBillingProfile(await completeAuthentication(asOperator(deps, request), request.params.user_id), deps.clock.now()),
    )

    app.post(
      '/accounts/:user_id/billing/hold',
      {
        schema: {
          summary: 'Set or lift an operator hold on collection',
          tags,
          params: UserParams,
          body: CollectionHoldSchema,
          response: profile,
        },
      },
      async (request) =>
        presentBillingProfile(await setCollectionHold(asOperator(deps, request), request.params.user_id, request.body.hold), deps.clock.now()),
    )

    app.post(
      '/accounts/:user_id/credits',
      {
        schema: {
          summary: 'Post an adjustment credit',
          description: 'Applied automatically to the next invoices, up to their amounts.',
          tags,
          params: UserParams,
          body: CreditCreateSchema,
          response: { 201: CreditSchema, ...errors(404) },
        },
      },
      async (request, reply) => {
        const credit = await postCredit(asOperator(deps, request), request.params.user_id, request.body.amount_cents, request.body.memo)
        const { credit_id, user_id, amount_cents, memo, posted_at } = credit
        return reply.code(201).send({ credit_id, user_id, amount_cents, memo, posted_at: posted_at.toISOString() })
      },
    )
  }
}
