import type { Static } from 'typebox'
import type { AccountRow, CampaignGraph, CreativeMetrics, InvoiceRow, OutboxMessage } from '../services/read-models.ts'
import type { AccountOverview } from '../services/accounts.ts'
import type { InvoiceWithDays } from '../services/invoices.ts'
import type { AuditEntry } from '../services/audit.ts'
import type { QueuedCreative } from '../services/moderation.ts'
import type { OperatorAccount } from '../services/operator-accounts.ts'
import type { JobSchedule } from '../services/operator-clock.ts'
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
import type { AccountListItemSchema, OperatorAccountSchema } from './schemas/admin/accounts.ts'
import type { AuditEntrySchema } from './schemas/admin/audit.ts'
import type { JobListSchema } from './schemas/admin/jobs.ts'
import type { QueuedCreativeSchema } from './schemas/admin/moderation.ts'
import type { CampaignSummarySchema } from './schemas/campaigns.ts'
import type { CampaignDetailSchema, CreativeSchema } from './schemas/creatives.ts'

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
      terms_version: a.terms_accepted ? a.terms_version : null,
    },
    config: orderConfigOf(config),
  }
}

/** What an invoice states, the same for its advertiser and the operator. */
function invoiceFigures(i: InvoiceRow) {
  return {
    invoice_id: i.invoice_id,
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
  }
}

/** The operator's view of an invoice (docs/billing.md (decision 0127)). */
export function presentInvoice(i: InvoiceRow): Static<typeof InvoiceSchema> {
  return {
    ...invoiceFigures(i),
    user_id: i.user_id,
    charge_attempts: i.charge_attempts,
    awaiting_authentication: i.pending_charge_id !== null,
  }
}

/** An invoice as its advertiser reads it (GET /v1/invoices): no user id, no processor state; the days it took from the ledger. */
export function presentAccountInvoice(i: InvoiceWithDays) {
  return { ...invoiceFigures(i), days: i.days.map((d) => ({ date: d.day, root: d.root, micros: d.micros })) }
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
    target_topics: c.target_topics,
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
  non_billable: null,
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
          non_billable: m.nonBillable,
        }
      : UNAVAILABLE,
    created_at: cr.created_at.toISOString(),
    updated_at: cr.updated_at.toISOString(),
  }
}

/** GET /campaigns/{id} (and the portal's campaign page): the campaign with its creative embedded (a collection read: no metrics). */
export function presentCampaignDetail(g: CampaignGraph): Static<typeof CampaignDetailSchema> {
  return { ...presentCampaign(g), creatives: [presentCreative(g)] }
}

export function presentOutboxMessage(m: OutboxMessage): Static<typeof OutboxMessageSchema> {
  return { to: m.to_address, subject: m.subject, text: m.text, sent_at: m.sent_at.toISOString(), delivery: m.delivery }
}

// ---------------------------------------------------------------------------------------------- operator views

export function presentAccountListItem(a: AccountRow): Static<typeof AccountListItemSchema> {
  return {
    user_id: a.user_id,
    email: a.email,
    billing_email: a.billing_email,
    created_at: a.created_at.toISOString(),
    write_approved: a.write_approved,
    terms_accepted: a.terms_accepted,
    writes_enabled: !a.writes_disabled,
    collection_status: shownStatus(collectionState(a)),
    effective_billing_mode: a.effective_billing_mode,
  }
}

/** The operator's view of an account: what the advertiser's GET /account shows of access, billing and balance, and more. */
export function presentOperatorAccount({ account: a, overview, invoices, portalLogin }: OperatorAccount): Static<typeof OperatorAccountSchema> {
  const advertiser = presentAccount(a, overview)
  const collection = collectionState(a)
  return {
    user_id: a.user_id,
    email: a.email,
    billing_email: a.billing_email,
    created_at: a.created_at.toISOString(),
    portal_login: portalLogin,
    key_prefix: a.key_prefix,
    key_created_at: a.key_created_at.toISOString(),
    key_last_used_at: iso(a.key_last_used_at),
    access: { ...advertiser.access, writes_enabled: !a.writes_disabled },
    collection: { status: shownStatus(collection), hold: collection.hold },
    billing_profile: advertiser.billing_profile,
    balance: advertiser.balance,
    invoices: invoices.map(presentInvoice),
  }
}

export function presentQueuedCreative(q: QueuedCreative): Static<typeof QueuedCreativeSchema> {
  const s = q.screening
  return {
    campaign_id: q.campaign_id,
    creative_id: q.creative_id,
    user_id: q.user_id,
    email: q.email,
    campaign_name: q.campaign_name,
    campaign_status: q.campaign_status,
    ad_line: q.ad_line,
    brand: q.brand,
    destination_url: q.destination_url,
    icon_url: q.icon_url,
    moderation_status: q.moderation_status,
    moderation_reason: q.moderation_reason,
    created_at: q.created_at.toISOString(),
    status_since: q.updated_at.toISOString(),
    content_safety: { verdict: s.verdict, category: s.verdict === 'allow' ? null : s.verdict === 'deny' ? s.category : s.reason },
  }
}

const snapshot = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null

export function presentAuditEntry(e: AuditEntry): Static<typeof AuditEntrySchema> {
  return {
    entry_id: e.entry_id,
    at: e.at.toISOString(),
    actor: { kind: e.actor_kind, operator_id: e.actor_id, email: e.actor_email },
    action: e.action,
    target: { kind: e.target_kind, id: e.target_id },
    before: snapshot(e.before),
    after: snapshot(e.after),
    source_address: e.source_address,
  }
}

export function presentJobSchedule(j: JobSchedule): Static<typeof JobListSchema>['jobs'][number] {
  return { job: j.job, ran_through: iso(j.ranThrough), last_run_at: iso(j.lastRunAt), next_due_at: iso(j.nextDueAt) }
}
