import type { FieldDetail } from './errors.ts'
import { collectionState, shownStatus, type CollectionStatus } from './collection.ts'

/**
 * The access model (advertiser spec section 1, operations.md section 6):
 * reads are always allowed; writes need approval, terms and working billing.
 * When several are missing, the first in this order is named, and 403 wins
 * over 402.
 */
export const CAMPAIGN_WRITES = ['operational', 'pending_approval', 'terms_required', 'billing_required', 'disabled'] as const
export type CampaignWrites = (typeof CAMPAIGN_WRITES)[number]

/** The per-account prerequisites of campaign writes, as GET /status lists them. */
export const WRITE_REQUIREMENTS = ['write_approval', 'api_terms', 'billing_enrollment'] as const

/** Why billing blocks writes: the `detail.reason` of their 402, one per cause. */
export const BILLING_REASONS = [
  'billing_not_enrolled',
  'billing_setup_pending',
  'payment_failed',
  'payment_action_required',
  'billing_paused',
  'billing_disabled',
  'invoice_overdue',
] as const
export type BillingReason = (typeof BILLING_REASONS)[number]

const STATUS_REASON: Record<Exclude<CollectionStatus, 'ready'>, BillingReason> = {
  not_enrolled: 'billing_not_enrolled',
  setup_pending: 'billing_setup_pending',
  payment_failed: 'payment_failed',
  action_required: 'payment_action_required',
  paused: 'billing_paused',
  disabled: 'billing_disabled',
}

export interface BillingFacts {
  effective_billing_mode: string
  collection_status: string
  collection_hold: string | null
  /** Net 30 invoices unpaid past their due date on the service clock (derived at read time, never stored). */
  overdue_invoice_ids: readonly string[]
}

export interface AccessFacts extends BillingFacts {
  writes_disabled: boolean
  write_approved: boolean
  terms_accepted: boolean
}

/** Which billing state blocks writes, and why; null when billing allows them. The collection status speaks first. */
export function billingBlock(f: BillingFacts): BillingReason | null {
  const status = shownStatus(collectionState(f))
  if (status !== 'ready') return STATUS_REASON[status]
  if (f.effective_billing_mode === 'disabled') return 'billing_not_enrolled'
  if (f.overdue_invoice_ids.length > 0) return 'invoice_overdue'
  return null
}

export function campaignWrites(a: AccessFacts): CampaignWrites {
  if (a.writes_disabled) return 'disabled'
  if (!a.write_approved) return 'pending_approval'
  if (!a.terms_accepted) return 'terms_required'
  if (billingBlock(a) !== null) return 'billing_required'
  return 'operational'
}

const WRITE_DENIAL: Record<Exclude<CampaignWrites, 'operational' | 'billing_required'>, string> = {
  disabled: 'campaign writes are disabled for this account',
  pending_approval: 'campaign write approval is pending; reads remain available',
  terms_required: 'the API terms must be accepted in the portal before campaign writes',
}

/** 403 with a sentence, or 402 naming the billing cause as `{field: 'billing', reason}`. */
export function writeDenial(a: AccessFacts): { status: 402 | 403; detail: string | FieldDetail } | null {
  const state = campaignWrites(a)
  if (state === 'operational') return null
  if (state !== 'billing_required') return { status: 403, detail: WRITE_DENIAL[state] }
  const reason = billingBlock(a) ?? 'billing_not_enrolled'
  const detail: FieldDetail = { field: 'billing', reason, collection_status: shownStatus(collectionState(a)) }
  if (reason === 'invoice_overdue') detail.invoice_ids = [...a.overdue_invoice_ids]
  return { status: 402, detail }
}
