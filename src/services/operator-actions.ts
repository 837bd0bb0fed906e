import type { ServiceContext } from './context.ts'
import {
  createAccount as createAccountUnaudited,
  enrollBilling as enrollBillingUnaudited,
  rotateKey as rotateKeyUnaudited,
  setTermsAccepted as setTermsAcceptedUnaudited,
  setWriteApproval as setWriteApprovalUnaudited,
  setWritesEnabled as setWritesEnabledUnaudited,
} from './accounts.ts'
import {
  completeAuthentication as completeAuthenticationUnaudited,
  requestNet30 as requestNet30Unaudited,
  setCollectionHold as setCollectionHoldUnaudited,
} from './billing-profile.ts'
import { markInvoicePaid as markInvoicePaidUnaudited, postCredit as postCreditUnaudited, voidInvoice as voidInvoiceUnaudited } from './billing/adjustments.ts'
import { unlockAddress as unlockAddressUnaudited } from './lockout.ts'
import { moderateCampaign as moderateCampaignUnaudited } from './moderation.ts'
import { moveManualClock as moveManualClockUnaudited, runJobNow as runJobNowUnaudited } from './operator-clock.ts'
import { setComponentState as setComponentStateUnaudited, updateServiceConfig as updateServiceConfigUnaudited } from './operator-settings.ts'
import { addTrafficBlock as addTrafficBlockUnaudited, removeTrafficBlock as removeTrafficBlockUnaudited } from './traffic-blocks.ts'
import { audited } from './audit.ts'
import {
  accountTarget,
  addressTarget,
  campaignTarget,
  clockTarget,
  componentTarget,
  configTarget,
  invoiceTarget,
  jobTarget,
  trafficBlockTarget,
} from './audit-targets.ts'

/**
 * Every operator action, audited (services/audit.ts). The token API's routes
 * and the console's pages call these, never the use cases underneath, so
 * each action writes its audit entry in one place whichever way it came. Each
 * keeps the signature of the use case it wraps; the context adds who acts.
 */

const first = <A extends unknown[]>(args: A) => args[0] as string

// Accounts
export const createAccount = audited(
  { action: 'account.create', target: accountTarget, id: (_args, result) => result?.user_id ?? null },
  createAccountUnaudited,
)
export const setWriteApproval = audited({ action: 'account.write_approval', target: accountTarget, id: first }, setWriteApprovalUnaudited)
export const setTermsAccepted = audited({ action: 'account.terms', target: accountTarget, id: first }, setTermsAcceptedUnaudited)
export const setWritesEnabled = audited({ action: 'account.writes', target: accountTarget, id: first }, setWritesEnabledUnaudited)
/** The new key is in the result only: the entry shows that the key changed (key_created_at), never the key. */
export const rotateKey = audited({ action: 'account.rotate_key', target: accountTarget, id: first }, rotateKeyUnaudited)

// Billing
/** The card number is an argument only: the entry keeps the card's brand and last four digits from the account. */
export const enrollBilling = audited(
  { action: 'account.billing_enroll', target: accountTarget, id: (args) => args[1] },
  enrollBillingUnaudited,
)
export const requestNet30 = audited({ action: 'account.net30_request', target: accountTarget, id: first }, requestNet30Unaudited)
export const completeAuthentication = audited(
  { action: 'account.billing_authenticate', target: accountTarget, id: first },
  completeAuthenticationUnaudited,
)
export const setCollectionHold = audited({ action: 'account.collection_hold', target: accountTarget, id: first }, setCollectionHoldUnaudited)
export const postCredit = audited(
  {
    action: 'account.credit',
    target: accountTarget,
    id: first,
    after: (snapshot, credit) => ({ ...snapshot, credit: { credit_id: credit.credit_id, amount_cents: credit.amount_cents, memo: credit.memo } }),
  },
  postCreditUnaudited,
)
export const markInvoicePaid = audited({ action: 'invoice.mark_paid', target: invoiceTarget, id: first }, markInvoicePaidUnaudited)
export const voidInvoice = audited(
  { action: 'invoice.void', target: invoiceTarget, id: first, after: (snapshot, _invoice, [, memo]) => ({ ...snapshot, memo }) },
  voidInvoiceUnaudited,
)

// Service settings, moderation, time
export const updateServiceConfig = audited({ action: 'config.update', target: configTarget, id: () => 'service_config' }, updateServiceConfigUnaudited)
export const setComponentState = audited(
  { action: 'component.set', target: componentTarget, id: first },
  (ctx: ServiceContext, component: string, state: string) => setComponentStateUnaudited(ctx, component, state),
)
export const moderateCampaign = audited({ action: 'campaign.moderate', target: campaignTarget, id: first }, moderateCampaignUnaudited)
export const moveManualClock = audited({ action: 'clock.move', target: clockTarget, id: () => 'service_clock' }, moveManualClockUnaudited)
export const runJobNow = audited(
  {
    action: 'job.run',
    target: jobTarget,
    id: first,
    after: (_snapshot, run) => ({ job: run.job, ran_at: run.ran_at.toISOString(), result: run.result }),
  },
  runJobNowUnaudited,
)

// Access
export const unlockAddress = audited(
  { action: 'address.unlock', target: addressTarget, id: (args) => args[0].trim() },
  unlockAddressUnaudited,
)

// Invalid traffic: the block list (the caller reloads the serving path's copy afterwards)
/** An entry already listed is returned as it is; its entry says so (`created` false). */
export const addTrafficBlock = audited(
  {
    action: 'traffic_block.add',
    target: trafficBlockTarget,
    id: (_args, result) => result?.row.block_id ?? null,
    after: (snapshot, result) => ({ ...snapshot, created: result.created }),
  },
  addTrafficBlockUnaudited,
)
/** The entry keeps the removed block as "before"; "after" is null. */
export const removeTrafficBlock = audited({ action: 'traffic_block.remove', target: trafficBlockTarget, id: first }, removeTrafficBlockUnaudited)
