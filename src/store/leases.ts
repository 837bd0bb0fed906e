import { sql } from 'kysely'
import type { Db } from './db.ts'
import { grantSize } from '../domain/leases.ts'
import { settleRows, type LockedLease } from './lease-settlement.ts'

// Impression budget leases (migration 0023; docs/decisions/0096-a-lease-is-a-range-of-a-campaigns-impression-numbers.md). A serving instance bills
// views against numbers it leased (src/serving/leases.ts); the views hot path only appends ledger rows
// and moves its lease's `used` (src/store/ledger.ts#writeViews). Granting, settling, recovering and
// revoking leases are here, each one short transaction that locks the campaigns first (in id order),
// then their lease rows. Folding a settlement into the campaigns is lease-settlement.ts's; reading
// unsettled use into a campaign's delivered count and spend is lease-use.ts's.

/**
 * How long a lease stays its holder's without a renewal (real time: the store's `now()`, never the
 * service clock, which tests move by hours). A holder renews every settle period (~1 s); a lease
 * past it is settled and freed by any instance, so a dead instance's numbers return within this.
 */
export const LEASE_TTL_MS = 15_000

export interface LeaseRow {
  leaseId: number
  campaignId: string
  firstSeq: number
  size: number
  used: number
  cpmMicros: number
}

/** What a batch of views is judged against besides its leases. */
export interface LeaseCampaign {
  campaignId: string
  impressions: number
  cpmMicros: number
  cancelledAtMs: number | null
  /** Impressions per block (every block holds impressions / block_count). */
  blockSize: number
}

export interface LeaseRequest {
  campaignId: string
  /** Room the batch needs now (its billable views of the campaign). */
  need: number
  /** Room this instance would like to hold (about a second of its billed rate). */
  want: number
}

const ttl = sql`(${LEASE_TTL_MS}::int8 * interval '1 millisecond')`

function toLease(r: Pick<LockedLease, 'lease_id' | 'campaign_id' | 'first_seq' | 'size' | 'used' | 'cpm_micros'>): LeaseRow {
  return { leaseId: r.lease_id, campaignId: r.campaign_id, firstSeq: r.first_seq, size: r.size, used: r.used, cpmMicros: r.cpm_micros }
}

/** The leases `holder` holds now (after a batch failed its lease check: revoked, shrunk or taken over). */
export async function heldLeases(db: Db, holder: string): Promise<LeaseRow[]> {
  const rows = await db
    .selectFrom('impression_leases')
    .select(['lease_id', 'campaign_id', 'first_seq', 'size', 'used', 'cpm_micros'])
    .where('holder', '=', holder)
    .orderBy('lease_id')
    .execute()
  return rows.map(toLease)
}

async function lockCampaignFacts(db: Db, ids: readonly string[]) {
  const { rows } = await sql<{
    campaign_id: string
    impressions: number
    impressions_leased: number
    cpm_micros: number
    cancelled_ms: number | null
    block_count: number
  }>`SELECT campaign_id, impressions, impressions_leased, cpm_micros, floor(extract(epoch FROM cancelled_at) * 1000)::int8 AS cancelled_ms, block_count
     FROM campaigns WHERE campaign_id = ANY(${ids}::text[]) ORDER BY campaign_id FOR UPDATE`.execute(db)
  return rows
}

/** The lease rows a settlement of `holder` handles: its used or idle ones, every expired one, empty ones; all of `holder`'s when releasing. */
function toSettle(holder: string, release: boolean, idle: readonly string[], finished: readonly string[]) {
  return sql`(holder = ${holder} AND (used > 0 OR ${release} OR campaign_id = ANY(${idle}::text[])))
    OR (holder IS NOT NULL AND expires_at < now()) OR size = 0 OR (used > 0 AND campaign_id = ANY(${finished}::text[]))`
}

async function lockLeases(db: Db, ids: readonly string[], which: ReturnType<typeof sql>) {
  const { rows } = await sql<LockedLease>`
    SELECT lease_id, campaign_id, holder, first_seq, size, used, cpm_micros, expires_at < now() AS expired FROM impression_leases
    WHERE campaign_id = ANY(${ids}::text[]) AND (${which}) ORDER BY lease_id FOR UPDATE`.execute(db)
  return rows
}

/**
 * One transaction granting `holder` room on the requested campaigns: an expired lease of another
 * holder is settled and freed first; free rows are taken before new numbers are carved; new numbers
 * are carved from `impressions_leased` (`domain/leases.ts#grantSize`). Answers the campaigns' facts
 * and every lease `holder` now holds on them.
 */
export async function grantLeases(
  db: Db,
  holder: string,
  requests: readonly LeaseRequest[],
  now: Date,
): Promise<{ campaigns: LeaseCampaign[]; leases: LeaseRow[] }> {
  const ids = [...new Set(requests.map((r) => r.campaignId))].sort()
  if (ids.length === 0) return { campaigns: [], leases: [] }
  return db.transaction().execute(async (trx) => {
    const facts = await lockCampaignFacts(trx, ids)
    const rows = await lockLeases(trx, ids, sql`true`)
    const expired = rows.filter((r) => r.holder !== null && r.holder !== holder && r.expired)
    await settleRows(trx, expired, () => true, now)
    for (const r of expired) Object.assign(r, { first_seq: r.first_seq + r.used, size: r.size - r.used, used: 0, holder: null })

    const take: number[] = []
    const carved: { campaignId: string; firstSeq: number; size: number; cpmMicros: number }[] = []
    const leased = new Map<string, number>()
    for (const f of facts) {
      const request = requests.find((r) => r.campaignId === f.campaign_id)!
      const mine = rows.filter((r) => r.campaign_id === f.campaign_id && r.holder === holder)
      let room = mine.reduce((sum, r) => sum + r.size - r.used, 0)
      const target = Math.max(request.want, request.need)
      for (const r of rows) {
        if (room >= target) break
        if (r.campaign_id !== f.campaign_id || r.holder !== null || r.size === 0) continue
        take.push(r.lease_id)
        room += r.size
      }
      const k = grantSize(room, request.need, target, f.impressions - f.impressions_leased)
      if (k > 0) {
        carved.push({ campaignId: f.campaign_id, firstSeq: f.impressions_leased + 1, size: k, cpmMicros: f.cpm_micros })
        leased.set(f.campaign_id, f.impressions_leased + k)
      }
    }
    if (take.length > 0) {
      // A free row is priced at the campaign's price now (its numbers were never billed).
      await sql`UPDATE impression_leases l SET holder = ${holder}, cpm_micros = c.cpm_micros, expires_at = now() + ${ttl}
        FROM campaigns c WHERE l.lease_id = ANY(${take}::int8[]) AND c.campaign_id = l.campaign_id`.execute(trx)
    }
    if (carved.length > 0) {
      await trx
        .insertInto('impression_leases')
        .values(
          carved.map((c) => ({
            campaign_id: c.campaignId,
            holder,
            first_seq: c.firstSeq,
            size: c.size,
            used: 0,
            cpm_micros: c.cpmMicros,
            expires_at: sql<Date>`now() + ${ttl}`,
          })),
        )
        .execute()
      const set = [...leased]
      await sql`UPDATE campaigns c SET impressions_leased = s.leased
        FROM unnest(${set.map(([id]) => id)}::text[], ${set.map(([, n]) => n)}::int8[]) AS s(campaign_id, leased)
        WHERE c.campaign_id = s.campaign_id`.execute(trx)
    }
    const held = await trx
      .selectFrom('impression_leases')
      .select(['lease_id', 'campaign_id', 'first_seq', 'size', 'used', 'cpm_micros'])
      .where('holder', '=', holder)
      .where('campaign_id', 'in', ids)
      .orderBy('lease_id')
      .execute()
    return {
      campaigns: facts.map((f) => ({
        campaignId: f.campaign_id,
        impressions: f.impressions,
        cpmMicros: f.cpm_micros,
        cancelledAtMs: f.cancelled_ms,
        blockSize: f.impressions / f.block_count,
      })),
      leases: held.map(toLease),
    }
  })
}

/**
 * Settles `holder`'s used leases (and any instance's expired ones, freeing those) in one
 * transaction, renews what `holder` keeps, and answers the leases it holds afterwards.
 * `release`: also free everything `holder` holds (shutdown); `idle`: free what it holds on these
 * campaigns (it has not billed them lately); `finished`: campaigns whose last number was just
 * billed, whose every holder's use is settled too (so the campaign completes at once; a holder
 * whose lease moved under it fails its next lease check and reads it again).
 */
export async function settleLeases(
  db: Db,
  holder: string,
  now: Date,
  release = false,
  idle: readonly string[] = [],
  finished: readonly string[] = [],
): Promise<LeaseRow[]> {
  return db.transaction().execute(async (trx) => {
    const which = toSettle(holder, release, idle, finished)
    const { rows: candidates } = await sql<{ campaign_id: string }>`
      SELECT DISTINCT campaign_id FROM impression_leases WHERE ${which}`.execute(trx)
    if (candidates.length > 0) {
      const ids = candidates.map((c) => c.campaign_id).sort()
      await lockCampaignFacts(trx, ids)
      const rows = await lockLeases(trx, ids, which)
      const freed = new Set(idle)
      await settleRows(trx, rows, (r) => r.expired || (r.holder === holder && (release || freed.has(r.campaign_id))), now)
    }
    if (release) return []
    const held = await sql<LockedLease>`UPDATE impression_leases SET expires_at = now() + ${ttl} WHERE holder = ${holder}
      RETURNING lease_id, campaign_id, holder, first_seq, size, used, cpm_micros, false AS expired`.execute(trx)
    return held.rows.map(toLease).sort((a, b) => a.leaseId - b.leaseId)
  })
}

/**
 * Cancelling a campaign (or anything else a batch judged on) shrinks every held lease of it to what
 * it used, in the caller's transaction, and returns the unused tails as free rows: a batch in flight
 * on a stale lease then fails its lease check and is judged again from the store.
 */
export async function revokeLeases(db: Db, campaignId: string): Promise<void> {
  await sql`
    WITH r AS (
      SELECT lease_id, first_seq, size, used, cpm_micros FROM impression_leases
      WHERE campaign_id = ${campaignId} AND holder IS NOT NULL AND size > used FOR UPDATE
    ),
    shrunk AS (UPDATE impression_leases l SET size = r.used FROM r WHERE l.lease_id = r.lease_id RETURNING 1)
    INSERT INTO impression_leases (campaign_id, holder, first_seq, size, used, cpm_micros, expires_at)
    SELECT ${campaignId}, NULL, r.first_seq + r.used, r.size - r.used, 0, r.cpm_micros, now() FROM r`.execute(db)
}
