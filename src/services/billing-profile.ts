import { collectionState, shownStatus, type Hold } from '../domain/collection.ts'
import { conflict, notFound } from '../domain/errors.ts'
import { lockAccount, updateAccount, type AccountRow } from '../store/accounts.ts'
import { invoicesAwaitingAction, recordBillingEvent } from '../store/billing.ts'
import { requireAccount } from './accounts.ts'
import { completeHeldCharges, retryCharges, type BillingContext } from './billing/charges.ts'
import { applyCollectionEvent } from './collection.ts'
import type { ServiceContext } from './context.ts'

/**
 * Records a request for Net 30 terms (the portal's "Request Net 30", and the
 * operator API on an advertiser's behalf). An account with no arrangement waits in
 * `setup_pending`; one already collecting keeps its arrangement until an
 * operator approves (POST /admin/v1/accounts/{id}/billing with Net 30).
 */
export async function requestNet30(ctx: ServiceContext, userId: string): Promise<AccountRow> {
  await ctx.db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, userId)
    if (!account) throw notFound('account')
    if (account.effective_billing_mode === 'net30_invoice') throw conflict({ field: 'mode', reason: 'already_net30' })
    await updateAccount(trx, userId, { requested_billing_mode: 'net30_invoice' })
    await applyCollectionEvent(trx, userId, { type: 'net30_requested' })
    await recordBillingEvent(trx, { user_id: userId, occurred_at: ctx.clock.now(), event_type: 'net30_requested' })
  })
  return requireAccount(ctx, userId)
}

/**
 * The card holder completed the processor's authentication (3-D Secure): the
 * card's setup is confirmed, every charge the processor held is completed,
 * and, once a setup is confirmed, failed charges are retried on the card.
 * 409 when nothing waits for authentication.
 */
export async function completeAuthentication(ctx: BillingContext, userId: string): Promise<AccountRow> {
  const account = await requireAccount(ctx, userId)
  // A card's setup waits for the holder (a Net 30 request in setup_pending waits for an operator instead).
  const pendingCard =
    collectionState(account).standing === 'setup_pending' && account.requested_billing_mode === 'weekly_autopay' ? account.payment_method_id : null
  const setupPending = pendingCard !== null
  const held = await invoicesAwaitingAction(ctx.db, userId)
  if (!setupPending && held.length === 0) {
    throw conflict({ field: 'user_id', reason: 'nothing_to_authenticate', collection_status: shownStatus(collectionState(account)) })
  }
  if (setupPending) {
    if (!(await ctx.processor.confirmSetup(pendingCard))) throw conflict({ field: 'card_number', reason: 'card_setup_failed' })
    await ctx.db.transaction().execute((trx) => applyCollectionEvent(trx, userId, { type: 'card_authenticated' }))
  }
  await completeHeldCharges(ctx, userId)
  if (setupPending) await retryCharges(ctx, userId)
  return requireAccount(ctx, userId)
}

/**
 * Sets or lifts an operator hold. `paused` holds collection (no charges,
 * delivery continues); `disabled` also stops delivery. Either makes writes
 * answer 402; lifting it returns the account to its standing.
 */
export async function setCollectionHold(ctx: ServiceContext, userId: string, hold: Hold | null): Promise<AccountRow> {
  await ctx.db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, userId)
    if (!account) throw notFound('account')
    if (collectionState(account).hold === hold) return
    await applyCollectionEvent(trx, userId, { type: 'hold_set', hold })
    await recordBillingEvent(trx, { user_id: userId, occurred_at: ctx.clock.now(), event_type: 'collection_hold_set', detail: { hold } })
  })
  return requireAccount(ctx, userId)
}
