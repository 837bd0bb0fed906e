import type { Static } from 'typebox'
import type { AccountRow, CampaignGraph, CreativeMetrics, InvoiceRow, OutboxRow } from '../services/read-models.ts'
import type { AccountOverview } from '../services/accounts.ts'
import { orderConfigOf } from '../domain/order-config.ts'
import { billingBlock, campaignWrites } from '../domain/access.ts'
import { computeBalance } from '../domain/balance.ts'
import { reportingCovered } from '../domain/components.ts'
import { CADENCE_OF, isBillingMode, nextRun, type BillingMode } from '../domain/billing-schedule.ts'
import { collectionState, shownStatus } from '../domain/collection.ts'
import { microsToUsd } from '../domain/money.ts'
import { blockServed } from '../domain/delivery.ts'
import type { AccountSchema, BillingProfileSchema } from './schemas/account.ts'
import type { InvoiceSchema } from './schemas/admin/invoices.ts'
import type { OutboxMessageSchema } from './schemas/admin/outbox.ts'
import type { CampaignSummarySchema } from './schemas/campaigns.ts'
import type { CreativeSchema } from './schemas/creatives.ts'

/** Presenters list every output field explicitly: a new column never leaks into a response. */

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString())

/** The effective arrangement; an account not yet enrolled is shown on the default weekly cadence. */
function billingArrangement(a: AccountRow, now: Date): { enrolled: boolean; mode: BillingMode; nextBill: Date | null } {
  const mode = a.effective_billing_mode
  if (!isBillingMode(mode)) return { enrolled: false, mode: 'weekly_autopay', nextBill: null }
  return { enrolled: true, mode, nextBill: nextRun(mode, now) }
}

export function presentBillingProfile(a: AccountRow, now: Date): Static<typeof BillingProfileSchema> {
  return {
    collection_status: shownStatus(collectionState(a)),
    requested_billing_mode: a.requested_billing_mode,
    effective_billing_mode: a.effective_billing_mode,
    credit_limit_cents: a.credit_limit_cents,
    tax_ready: a.billing_country !== null,
    next_bill_at: iso(billingArrangement(a, now).nextBill),
    payment_method: a.card_last4 === null ? null : { brand: a.card_brand, last4: a.card_last4 },
  }
}

export function presentAccount(a: AccountRow, { facts, overdue, config, reporting, now }: AccountOverview): Static<typeof AccountSchema> {
  const balance = computeBalance(facts)
  const { enrolled, mode, nextBill } = billingArrangement(a, now)
  const access = { ...a, overdue_invoice_ids: overdue.map((i) => i.invoice_id) }
  return {
    user_id: a.user_id,
    key_prefix: a.key_prefix,
    key_last_used_at: iso(a.key_last_used_at),
    outstanding_cents: balance.pending_cents,
    currency: 'usd',
    billing: enrolled ? mode : 'delivered_value_postpay',
    billing_email: a.billing_email,
    balance: {
      ...balance,
      last_invoiced_at: iso(balance.last_invoiced_at),
      next_invoice_at: iso(nextBill),
      collection_status: shownStatus(collectionState(a)),
      overdue_invoices: overdue.map((i) => ({ invoice_id: i.invoice_id, total_cents: i.total_cents, due_at: i.due_at.toISOString() })),
      amount_basis: 'delivered_value',
      cadence: CADENCE_OF[mode],
      billing_mode: mode,
    },
    billing_profile: presentBillingProfile(a, now),
    access: {
      // Anything short of covered (rollups behind, degraded, disabled, unknown) is shown as degraded.
      reporting: reportingCovered(reporting) ? 'operational' : 'degraded',
      campaign_writes: campaignWrites(access),
      billing_reason: billingBlock(access),
      write_approved: a.write_approved,
      terms_accepted: a.terms_accepted,
    },
    config: orderConfigOf(config),
  }
}

/** The operator's view of an invoice (docs/decisions.md, Billing: operator invoice shape). */
export function presentInvoice(i: InvoiceRow): Static<typeof InvoiceSchema> {
  return {
    invoice_id: i.invoice_id,
    user_id: i.user_id,
    billing_mode: i.billing_mode,
    period: { start: i.period_start.toISOString(), end: i.period_end.toISOString() },
    delivered_micros: i.delivered_micros,
    amount_cents: i.amount_cents,
    credits_applied_cents: i.credits_applied_cents,
    total_cents: i.total_cents,
    status: i.status,
    finalized_at: i.finalized_at.toISOString(),
    due_at: i.due_at.toISOString(),
    paid_at: iso(i.paid_at),
    charge_attempts: i.charge_attempts,
    awaiting_authentication: i.pending_charge_id !== null,
  }
}

function presentBlocks(g: CampaignGraph) {
  return g.blocks.map((b) => ({
    block_index: b.block_index,
    status: b.status,
    impressions_served: blockServed(b.block_index, b.impressions_target, g.campaign.impressions_billed),
    impressions_target: b.impressions_target,
    started_at: iso(b.started_at),
    exhausted_at: iso(b.exhausted_at),
  }))
}


export function presentCampaign(g: CampaignGraph): Static<typeof CampaignSummarySchema> {
  const { campaign: c, creative: cr } = g
  return {
    campaign_id: c.campaign_id,
    creation_channel: c.creation_channel,
    name: c.name,
    status: c.status,
    created_at: c.created_at.toISOString(),
    ad_line: cr.ad_line,
    destination_url: cr.destination_url,
    brand: cr.brand,
    moderation_status: cr.moderation_status,
    lifetime_spent_micros: c.lifetime_spent_micros,
    report_uuid: c.report_uuid,
    kind: c.kind,
    cpm_usd: microsToUsd(c.cpm_micros),
    impressions: c.impressions,
    impressions_served: c.impressions_billed,
    amount_cents: c.amount_cents,
    target_surface: c.target_surface,
    target_countries: c.target_countries,
    pace_minutes: c.pace_minutes,
    blocks: presentBlocks(g),
  }
}

const UNAVAILABLE = {
  metrics_availability: 'temporarily_unavailable',
  billable_impressions: null,
  clicks: null,
  ctr: null,
  viewable_ticks: null,
  unique_viewers: null,
  spend_micros: null,
  first_served_at: null,
  last_served_at: null,
} as const

/**
 * A creative. Metrics are given only with contiguous closed-day rollup
 * coverage (`complete`, exact from the ledger); otherwise they are null with
 * `temporarily_unavailable`: null is never a measured zero.
 */
export function presentCreative(g: CampaignGraph, m: CreativeMetrics | null = null): Static<typeof CreativeSchema> {
  const { campaign: c, creative: cr } = g
  const servedImpressions = c.impressions_billed
  return {
    creative_id: cr.creative_id,
    campaign_id: cr.campaign_id,
    campaign_status: c.status,
    ad_line: cr.ad_line,
    destination_url: cr.destination_url,
    brand: cr.brand,
    icon_url: cr.icon_url,
    moderation_status: cr.moderation_status,
    // While pending, the column holds the content-safety reason the line was held for: that is the operator's, not the advertiser's.
    moderation_reason: cr.moderation_status === 'rejected' ? cr.moderation_reason : null,
    kind: c.kind,
    cpm_usd: microsToUsd(c.cpm_micros),
    target_surface: c.target_surface,
    target_countries: c.target_countries,
    pace_minutes: c.pace_minutes,
    allocation_status: 'creative',
    inventory: {
      purchased_impressions: c.impressions,
      served_impressions: servedImpressions,
      remaining_impressions: c.impressions - servedImpressions,
    },
    blocks: presentBlocks(g),
    delivery: m
      ? {
          metrics_availability: 'complete',
          billable_impressions: m.billable,
          clicks: m.clicks,
          ctr: m.billable === 0 ? 0 : m.clicks / m.billable,
          viewable_ticks: m.ticks,
          unique_viewers: m.viewers,
          spend_micros: m.spend,
          first_served_at: iso(m.first),
          last_served_at: iso(m.last),
        }
      : UNAVAILABLE,
    created_at: cr.created_at.toISOString(),
    updated_at: cr.updated_at.toISOString(),
  }
}

export function presentOutboxMessage(m: OutboxRow): Static<typeof OutboxMessageSchema> {
  return { to: m.to_address, subject: m.subject, text: m.body, sent_at: m.sent_at.toISOString(), delivery: m.delivery }
}
