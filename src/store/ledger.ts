import { sql, type Insertable } from 'kysely'
import { executePrepared, postgresPoolOf, type Db } from './db.ts'
import { copyOffers } from './ledger-copy.ts'
import type { LedgerEventsTable } from './schema.ts'
import { viewerSlot, VIEWER_FREQUENCY_MS, type CampaignInventory, type LedgerState, type ViewToJudge } from '../domain/delivery.ts'

// The ledger's group-commit statements. Judging a batch, and retrying one a concurrent batch overtook,
// is the serving layer's (src/serving/ledger-batch.ts).

export type LedgerRow = Insertable<LedgerEventsTable>

/** A campaign as a batch of views is judged against it: inventory, cancellation and price. */
export type LedgerCampaign = CampaignInventory & { cpmMicros: number }

/** What the store reads about a measured view: its impression, campaign and viewer slot. */
export type ViewKeys = Pick<ViewToJudge, 'impressionId' | 'campaignId' | 'viewerKey' | 'surface'>

/** SQLSTATEs meaning "a concurrent batch overtook this one's reads": re-read and decide again. */
const RACE_CODES = new Set(['40001', '40P01'])
const INVENTORY_CONSTRAINT = 'campaigns_billed_within_order'
/** The unique index on measured views: a batch inserting without ON CONFLICT hits it on a repeat. */
const ONE_VIEW_INDEX = 'ledger_one_view'

/** True when `writeBatch` (or the read before it) failed because a concurrent batch overtook this one. */
export function isRace(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string }
  return (
    RACE_CODES.has(e.code ?? '') ||
    (e.code === '23514' && e.constraint === INVENTORY_CONSTRAINT) ||
    (e.code === '23505' && e.constraint === ONE_VIEW_INDEX)
  )
}

/**
 * One statement reading what a batch of views is judged against: views already recorded for these
 * impressions, each viewer's last billable instant, and the campaigns' inventory, price and cancellation.
 */
export async function readLedgerState(db: Db, views: readonly ViewKeys[]): Promise<LedgerState<LedgerCampaign>> {
  const ids = views.map((v) => v.impressionId)
  // Probed by the whole primary key (viewer, surface): one index lookup each, also before ANALYZE.
  const slots = [...new Map(views.map((v) => [viewerSlot(v.viewerKey, v.surface), [v.viewerKey, v.surface] as const])).values()]
  const campaigns = [...new Set(views.map((v) => v.campaignId))]
  const { rows } = await executePrepared(
    db,
    sql<{
    recorded: string[] | null
    last_billable: [string, string, number][] | null
    campaigns: [string, number, number, number, number | null][] | null
  }>`
    SELECT
      (SELECT json_agg(impression_id) FROM ledger_events
        WHERE event_type IN ('impression', 'view') AND impression_id = ANY(${ids}::text[])) AS recorded,
      (SELECT json_agg(json_build_array(v.viewer_key, v.surface, v.billed_at_ms))
        FROM unnest(${slots.map((s) => s[0])}::text[], ${slots.map((s) => s[1])}::text[]) AS k(viewer_key, surface)
        JOIN viewer_last_billable v ON v.viewer_key = k.viewer_key AND v.surface = k.surface) AS last_billable,
      (SELECT json_agg(json_build_array(campaign_id, impressions, impressions_billed, cpm_micros,
          floor(extract(epoch FROM cancelled_at) * 1000)::int8)) FROM campaigns
        WHERE campaign_id = ANY(${campaigns}::text[])) AS campaigns
  `.compile(db),
  )
  const r = rows[0]!
  return {
    recorded: new Set(r.recorded ?? []),
    lastBillableMs: new Map((r.last_billable ?? []).map(([viewer, surface, at]) => [viewerSlot(viewer, surface), at])),
    campaigns: new Map<string, LedgerCampaign>(
      (r.campaigns ?? []).map(([id, impressions, billed, cpmMicros, cancelledAtMs]) => [id, { impressions, billed, cpmMicros, cancelledAtMs }]),
    ),
  }
}

/** Locks the batch's campaigns in id order (so batches never deadlock on them). */
export async function lockCampaigns(db: Db, campaignIds: readonly string[]): Promise<void> {
  const ids = [...new Set(campaignIds)]
  if (ids.length === 0) return
  await sql`SELECT campaign_id FROM campaigns WHERE campaign_id = ANY(${ids}::text[]) ORDER BY campaign_id FOR UPDATE`.execute(db)
}

/** The batch's events as one array per column: one statement text whatever the batch size. */
export class EventColumns {
  atMs: number[] = []
  type: string[] = []
  impression: string[] = []
  user: string[] = []
  campaign: string[] = []
  creative: string[] = []
  surface: string[] = []
  country: (string | null)[] = []
  debit: number[] = []
  dwell: (number | null)[] = []
  reason: (string | null)[] = []
  viewer: string[] = []

  push(r: LedgerRow, debitMicros: number, dwellMs: number | null, reason: string | null): void {
    this.atMs.push(new Date(r.occurred_at).getTime())
    this.type.push(r.event_type)
    this.impression.push(r.impression_id)
    this.user.push(r.user_id)
    this.campaign.push(r.campaign_id)
    this.creative.push(r.creative_id)
    this.surface.push(r.surface)
    this.country.push(r.country ?? null)
    this.debit.push(debitMicros)
    this.dwell.push(dwellMs)
    this.reason.push(reason)
    this.viewer.push(r.viewer_key)
  }
}

const eventColumns = sql`(occurred_at, event_type, impression_id, user_id, campaign_id, creative_id, surface, country, billable, debit_micros, dwell_ms, reason, viewer_key)`

/**
 * The select list turning the column arrays into ledger rows (in `eventColumns` order), followed by
 * each row's position in the batch (`ord`, from 1) when `withOrd`.
 */
function eventValues(e: EventColumns, withOrd = false) {
  return sql`
    timestamptz 'epoch' + r.at_ms * interval '1 millisecond' AS occurred_at, r.event_type, r.impression_id, r.user_id, r.campaign_id,
    r.creative_id, r.surface, r.country, r.event_type = 'impression' AS billable, r.debit_micros, r.dwell_ms, r.reason, r.viewer_key
    ${withOrd ? sql`, r.ord` : sql``}
    FROM unnest(
      ${e.atMs}::int8[], ${e.type}::text[], ${e.impression}::text[], ${e.user}::text[], ${e.campaign}::text[],
      ${e.creative}::text[], ${e.surface}::text[], ${e.country}::text[], ${e.debit}::int8[], ${e.dwell}::int4[],
      ${e.reason}::text[], ${e.viewer}::text[]
    ) WITH ORDINALITY AS r(at_ms, event_type, impression_id, user_id, campaign_id, creative_id, surface, country, debit_micros, dwell_ms, reason, viewer_key, ord)`
}

/** How a batch of offers is written on PostgreSQL (the embedded store always inserts). */
export type OfferWrite = 'insert' | 'copy-binary' | 'copy-text'

/**
 * A batch of offers alone: nobody waits for it and it bills nothing, so it
 * is written the cheapest way that keeps the ledger whole.
 *  - A plain insert, with no `ON CONFLICT` and no unique index on offers
 *    (migration 0012): an impression id is new by construction (a random
 *    nonce in the sealed offer) and each offer is written in exactly one
 *    batch, never retried (src/serving/ledger-writer.ts).
 *  - Committed without waiting for the WAL flush (`synchronous_commit` off for
 *    this transaction only): the flush follows within the WAL writer's delay,
 *    and every synchronous commit after it (a view, a click) flushes it
 *    first, so an offer whose view was acknowledged is always durable. A
 *    crash of PostgreSQL itself may lose the offers of its last few hundred
 *    milliseconds, which bill nothing (docs/decisions.md, "Serving").
 *  - On PostgreSQL, COPY FROM STDIN in binary format on a connection of the
 *    pool, one round trip (src/store/ledger-copy.ts): about a third less
 *    backend CPU per offer row than the unnest insert (`bench/offers-write.ts`
 *    compares the ways, `how`). The embedded store's wire adapter cannot COPY
 *    FROM STDIN: it inserts, as does a `db` that is a transaction.
 */
export async function writeOffers(db: Db, e: EventColumns, how: OfferWrite = 'copy-binary'): Promise<void> {
  const pool = how === 'insert' ? undefined : postgresPoolOf(db)
  if (pool) {
    const client = await pool.connect()
    try {
      await copyOffers(client, e, how === 'copy-text' ? 'text' : 'binary')
    } catch (err) {
      // A failed COPY may leave the connection mid-protocol (a read timeout): it is not reused.
      client.release(err instanceof Error ? err : true)
      throw err
    }
    client.release()
    return
  }
  await executePrepared(
    db,
    sql`WITH async_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true))
      INSERT INTO ledger_events ${eventColumns} SELECT ${eventValues(e)} CROSS JOIN async_commit`.compile(db),
  )
}

/** Clicks, with any offers of the same batch: a repeat click of an impression is dropped by `ledger_one_click`. */
async function insertEvents(db: Db, e: EventColumns): Promise<void> {
  await executePrepared(db, sql`INSERT INTO ledger_events ${eventColumns} SELECT ${eventValues(e)} ON CONFLICT DO NOTHING`.compile(db))
}

/**
 * Writes one batch and commits it in one statement (data-modifying CTEs,
 * autocommit): the events, the campaigns' billed totals and spend
 * (completing a campaign whose last block is exhausted), block status
 * changes and the viewers' last billable instants. It answers each billed
 * campaign's [id, billed total, impressions] and the views dropped as repeats.
 *
 * No lock is held since the batch was judged: the statement re-checks what
 * the judgment relied on, and aborts as a whole (`isRace`) when a concurrent
 * batch (another instance, or this one's other batch in flight) overtook it:
 *  - inventory: `impressions_billed <= impressions` is a CHECK constraint;
 *  - the ten-second rule: the viewer upsert only moves forward after ten seconds;
 *  - repeats: a batch judged from the store inserts with ON CONFLICT DO
 *    NOTHING (`repeats: 'skip'`), so the unique index on measured views drops
 *    a concurrent repeat of a non-billable view (that view is then a
 *    duplicate, listed in `lost`); a dropped billable one aborts the batch,
 *    since its debit was priced in sequence with the others (below). A batch
 *    judged from known state did not look for repeats at all: it inserts
 *    without ON CONFLICT (`repeats: 'fail'`), and a repeat fails the statement
 *    on that index (23505), after which the batch is judged again from the
 *    store. Skipping ON CONFLICT's pre-check of every unique index saves
 *    PostgreSQL about 5-10 % of its CPU a view (docs/performance.md); a repeat
 *    costs a retry either way, since a billable repeat would also fail the
 *    billed-count check;
 *  - cancellation and price: the campaign's `cancelled_at` and `cpm_micros`
 *    must be what was read (`relied`).
 * The debits are not part of the judgment: the write prices each impression
 * from the campaign's billed count under its row lock (the n-th billable
 * impression of a campaign debits `impressionDebitMicros(cpm, n)`), so a
 * batch overtaken by another never needs a retry for its prices.
 */
export async function writeBatch(
  db: Db,
  now: Date,
  e: EventColumns,
  relied: ({ id: string } & LedgerCampaign)[],
  expectBillable: number,
  repeats: 'skip' | 'fail',
): Promise<{ campaigns: [string, number, number][] | null; lost: string[] | null }> {
  const nowMs = now.getTime()
  if (!e.type.some((t) => t === 'impression' || t === 'view')) {
    // Offers and clicks only (the decision path's batches): nothing to judge or re-check.
    if (e.type.length > 0) await (e.type.every((t) => t === 'offer') ? writeOffers(db, e) : insertEvents(db, e))
    return { campaigns: null, lost: null }
  }
  // Prepared (src/store/db.ts#executePrepared): its planning cost more than its execution.
  const { rows } = await executePrepared(
    db,
    sql<{ ok: boolean; campaigns: [string, number, number][] | null; lost: string[] | null }>`
    WITH input AS (SELECT ${eventValues(e, true)}),
    -- The campaigns this batch bills, locked in id order (so batches never deadlock on them) before
    -- anything is inserted: their billed count is then the committed one, and stays so until commit.
    locked AS (
      SELECT campaign_id, impressions_billed, cpm_micros FROM campaigns
      WHERE campaign_id IN (SELECT campaign_id FROM input WHERE event_type = 'impression')
      ORDER BY campaign_id FOR UPDATE
    ),
    -- The n-th impression a campaign ever bills debits floor(n·c/1000) − floor((n−1)·c/1000) micros
    -- (src/domain/money.ts#impressionDebitMicros, the same integers): n counts from the locked billed
    -- count, in batch order, so every block of 1,000 sums to exactly the CPM whichever batches,
    -- instances and retries billed it. int8 arithmetic: n·c stays far below 2^63.
    priced AS (
      SELECT r.occurred_at, r.event_type, r.impression_id, r.user_id, r.campaign_id, r.creative_id, r.surface, r.country,
        r.billable,
        CASE WHEN r.event_type = 'impression'
          THEN ((l.impressions_billed + r.k) * l.cpm_micros) / 1000 - ((l.impressions_billed + r.k - 1) * l.cpm_micros) / 1000
          ELSE r.debit_micros END AS debit_micros,
        r.dwell_ms, r.reason, r.viewer_key, r.ord
      FROM (SELECT i.*, row_number() OVER (PARTITION BY i.campaign_id, i.event_type ORDER BY i.ord) AS k FROM input i) r
      LEFT JOIN locked l ON l.campaign_id = r.campaign_id AND r.event_type = 'impression'
    ),
    ins AS (
      INSERT INTO ledger_events ${eventColumns}
      SELECT occurred_at, event_type, impression_id, user_id, campaign_id, creative_id, surface, country, billable, debit_micros,
             dwell_ms, reason, viewer_key
      FROM priced ORDER BY ord
      ${repeats === 'skip' ? sql`ON CONFLICT DO NOTHING` : sql``}
      RETURNING event_type, impression_id, campaign_id, surface, viewer_key, debit_micros
    ),
    billed AS (
      SELECT campaign_id, count(*)::int AS n, sum(debit_micros)::int8 AS spent FROM ins
      WHERE event_type = 'impression' GROUP BY campaign_id
    ),
    upd AS (
      UPDATE campaigns c SET
        impressions_billed = c.impressions_billed + b.n,
        lifetime_spent_micros = c.lifetime_spent_micros + b.spent,
        status = CASE WHEN c.impressions_billed + b.n >= c.impressions AND c.status IN ('active', 'paused') THEN 'completed' ELSE c.status END,
        completed_at = CASE WHEN c.impressions_billed + b.n >= c.impressions AND c.status IN ('active', 'paused') THEN ${now} ELSE c.completed_at END,
        updated_at = CASE WHEN c.impressions_billed + b.n >= c.impressions AND c.status IN ('active', 'paused') THEN ${now} ELSE c.updated_at END
      FROM billed b JOIN locked l ON l.campaign_id = b.campaign_id
      WHERE c.campaign_id = b.campaign_id
      RETURNING c.campaign_id, c.impressions, c.impressions_billed, c.activated_at, c.cpm_micros,
                floor(extract(epoch FROM c.cancelled_at) * 1000)::int8 AS cancelled_ms,
                -- Every block of a campaign holds impressions / block_count (src/domain/campaign-order.ts).
                c.impressions_billed / (c.impressions / c.block_count) AS current_block
    ),
    blk AS (
      UPDATE blocks b SET
        status = CASE WHEN u.impressions_billed >= (b.block_index + 1) * b.impressions_target THEN 'exhausted' ELSE 'serving' END,
        started_at = coalesce(b.started_at, ${now}),
        exhausted_at = CASE WHEN u.impressions_billed >= (b.block_index + 1) * b.impressions_target
                            THEN coalesce(b.exhausted_at, ${now}) ELSE b.exhausted_at END
      FROM upd u
      -- Only blocks at or below the current one can change: an index range on blocks_open (migration 0013).
      WHERE b.campaign_id = u.campaign_id AND b.status <> 'exhausted' AND b.block_index <= u.current_block
        AND (u.impressions_billed >= (b.block_index + 1) * b.impressions_target
          OR (u.activated_at IS NOT NULL AND b.status = 'queued' AND b.block_index = u.impressions_billed / b.impressions_target))
    ),
    freq AS (
      INSERT INTO viewer_last_billable AS v (viewer_key, surface, billed_at_ms)
      SELECT viewer_key, surface, ${nowMs}::int8 FROM ins WHERE event_type = 'impression'
      ON CONFLICT (viewer_key, surface) DO UPDATE SET billed_at_ms = excluded.billed_at_ms
        WHERE v.billed_at_ms <= excluded.billed_at_ms - ${VIEWER_FREQUENCY_MS}::int8
      RETURNING 1
    ),
    relied AS (
      SELECT * FROM unnest(${relied.map((c) => c.id)}::text[], ${relied.map((c) => c.cpmMicros)}::int8[],
                           ${relied.map((c) => c.cancelledAtMs)}::int8[]) AS s(campaign_id, cpm_micros, cancelled_ms)
    )
    SELECT
      ledger_batch_check(
        (SELECT count(*) FROM freq) = (SELECT count(*) FROM ins WHERE event_type = 'impression')
        -- Every impression judged billable is written: a dropped one (a concurrent repeat) would leave
        -- a gap in the debit sequence priced above, so the batch is judged again from the store.
        AND (SELECT count(*) FROM ins WHERE event_type = 'impression') = ${expectBillable}::int
        AND NOT EXISTS (
          SELECT 1 FROM upd u LEFT JOIN relied s ON s.campaign_id = u.campaign_id
          WHERE s.campaign_id IS NULL OR u.cpm_micros <> s.cpm_micros OR u.cancelled_ms IS DISTINCT FROM s.cancelled_ms)
      ) AS ok,
      (SELECT json_agg(json_build_array(campaign_id, impressions_billed, impressions)) FROM upd) AS campaigns,
      -- Views dropped by ON CONFLICT; an insert without it writes every row or fails.
      ${
        repeats === 'skip'
          ? sql`(SELECT json_agg(r.impression_id) FROM input r
        WHERE r.event_type IN ('impression', 'view')
          AND NOT EXISTS (SELECT 1 FROM ins i WHERE i.impression_id = r.impression_id AND i.event_type = r.event_type))`
          : sql`NULL::json`
      } AS lost
  `.compile(db),
  )
  return rows[0]!
}
