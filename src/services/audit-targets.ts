import type { AuditTargetKind } from '../domain/audit.ts'
import { collectionState, shownStatus } from '../domain/collection.ts'
import { componentState } from '../domain/components.ts'
import { findAccount } from '../store/accounts.ts'
import { availableCreditsCents, findInvoice } from '../store/billing.ts'
import { findCreativeForOperator } from '../store/campaigns.ts'
import { findOperator } from '../store/operators.ts'
import { readComponentStates, readConfig } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'
import { readAddressLocks, type LockoutContext } from './lockout.ts'
import { readTrafficBlock } from './traffic-blocks.ts'

/**
 * What the audit log keeps of each kind of target, before and after an
 * action: an explicit list of fields per kind, like a presenter, so a new
 * column never reaches the log by itself. Never a secret: no API key or its
 * digest, no password or hash, no card number (only its last four digits), no
 * token. Each returns null when the target does not exist.
 */
export type AuditContext = ServiceContext & LockoutContext
export type Snapshot = Record<string, unknown>

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

export interface AuditTarget {
  kind: AuditTargetKind
  snapshot(ctx: AuditContext, id: string): Promise<Snapshot | null>
}

export const accountTarget: AuditTarget = {
  kind: 'account',
  async snapshot(ctx, userId) {
    const a = await findAccount(ctx.db, userId)
    if (!a) return null
    return {
      user_id: a.user_id,
      email: a.email,
      billing_email: a.billing_email,
      write_approved: a.write_approved,
      terms_accepted: a.terms_accepted,
      writes_enabled: !a.writes_disabled,
      collection_status: shownStatus(collectionState(a)),
      collection_hold: a.collection_hold,
      requested_billing_mode: a.requested_billing_mode,
      effective_billing_mode: a.effective_billing_mode,
      credit_limit_cents: a.credit_limit_cents,
      card: a.card_last4 === null ? null : { brand: a.card_brand, last4: a.card_last4 },
      billing_country: a.billing_country,
      // A rotation shows as a new display prefix (as GET /v1/account shows it) and key_created_at; the key itself is never kept.
      key_prefix: a.key_prefix,
      key_created_at: iso(a.key_created_at),
      credits_available_cents: await availableCreditsCents(ctx.db, userId),
    }
  },
}

export const invoiceTarget: AuditTarget = {
  kind: 'invoice',
  async snapshot(ctx, invoiceId) {
    const i = await findInvoice(ctx.db, invoiceId)
    if (!i) return null
    return {
      invoice_id: i.invoice_id,
      user_id: i.user_id,
      status: i.status,
      amount_cents: i.amount_cents,
      credits_applied_cents: i.credits_applied_cents,
      total_cents: i.total_cents,
      due_at: iso(i.due_at),
      paid_at: iso(i.paid_at),
    }
  },
}

export const campaignTarget: AuditTarget = {
  kind: 'campaign',
  async snapshot(ctx, campaignId) {
    const c = await findCreativeForOperator(ctx.db, campaignId)
    if (!c) return null
    return {
      campaign_id: c.campaign_id,
      creative_id: c.creative_id,
      user_id: c.user_id,
      ad_line: c.ad_line,
      moderation_status: c.moderation_status,
      moderation_reason: c.moderation_reason,
    }
  },
}

export const configTarget: AuditTarget = {
  kind: 'config',
  snapshot: async (ctx) => ({ ...(await readConfig(ctx.db)) }),
}

export const componentTarget: AuditTarget = {
  kind: 'component',
  snapshot: async (ctx, component) => ({ component, state: componentState((await readComponentStates(ctx.db)).get(component)) }),
}

export const clockTarget: AuditTarget = {
  kind: 'clock',
  snapshot: async (ctx) => ({ now: ctx.clock.now().toISOString() }),
}

export const addressTarget: AuditTarget = {
  kind: 'address',
  snapshot: async (ctx, address) => ({ address, locked_until: await readAddressLocks(ctx, address) }),
}

export const operatorTarget: AuditTarget = {
  kind: 'operator',
  async snapshot(ctx, operatorId) {
    const o = await findOperator(ctx.db, operatorId)
    return o ? { operator_id: o.operator_id, email: o.email, created_at: iso(o.created_at) } : null
  },
}

/** A job's run leaves nothing to compare before and after (no watermark moves): its entry keeps the run itself. */
export const jobTarget: AuditTarget = {
  kind: 'job',
  snapshot: async () => null,
}

/** An entry of the operators' block list (docs/invalid-traffic.md); null once removed. */
export const trafficBlockTarget: AuditTarget = {
  kind: 'traffic_block',
  async snapshot(ctx, blockId) {
    const b = await readTrafficBlock(ctx, blockId)
    return b ? { block_id: b.block_id, kind: b.kind, value: b.value, note: b.note, created_at: iso(b.created_at), created_by: b.created_by } : null
  },
}
