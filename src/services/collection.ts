import { collectionState, nextCollection, type CollectionEvent, type CollectionState } from '../domain/collection.ts'
import { notFound } from '../domain/errors.ts'
import { lockAccount, updateAccount } from '../store/accounts.ts'
import { chargeProblems } from '../store/billing.ts'
import type { Db } from '../store/db.ts'

/**
 * Applies one collection event to an account inside the caller's
 * transaction, under the account's row lock, and stores the result only when
 * it changed (a stored change also moves the serving epoch).
 */
export async function applyCollectionEvent(trx: Db, userId: string, event: CollectionEvent): Promise<CollectionState> {
  const account = await lockAccount(trx, userId)
  if (!account) throw notFound('account')
  const before = collectionState(account)
  const after = nextCollection(before, event)
  if (after.standing !== before.standing || after.hold !== before.hold) {
    await updateAccount(trx, userId, { collection_status: after.standing, collection_hold: after.hold })
  }
  return after
}

/** After a charge outcome, a payment or a void: the standing follows the failed and held charges left. */
export async function reconcileStanding(trx: Db, userId: string): Promise<CollectionState> {
  const problems = await chargeProblems(trx, userId)
  return applyCollectionEvent(trx, userId, { type: 'charges_changed', ...problems })
}
