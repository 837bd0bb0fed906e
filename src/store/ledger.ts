import { sql, type Insertable } from 'kysely'
import { executePrepared, type Db } from './db.ts'
import type { LedgerEventsTable } from './schema.ts'
import { VIEWER_FREQUENCY_MS } from '../domain/delivery.ts'
import { utcDay } from '../domain/clicks.ts'
import { utcHourStart, type SourceLimits } from '../domain/invalid-traffic.ts'
import { prefix48Of } from '../domain/traffic-source.ts'

// The ledger's group-commit statements. What a batch is judged against is read by ledger-state.ts;
// judging a batch, and retrying one a concurrent batch overtook, is the serving layer's
// (src/serving/ledger-batch.ts).

/**
 * A ledger row as the serving layer builds it: with its impression's id, which the row itself does not
 * keep (migration 0040): the statement writing it derives the key, `ledger_claim_key(impression_id)`.
 */
export type LedgerRow = Omit<Insertable<LedgerEventsTable>, 'impression_key'> & { impression_id: string }

/** SQLSTATEs meaning "a concurrent batch overtook this one's reads": re-read and decide again. */
const RACE_CODES = new Set(['40001', '40P01'])
/** A lease's `used <= size` (migration 0023): the lease was shrunk (revoked) under the batch. */
const INVENTORY_CONSTRAINTS = new Set(['campaigns_billed_within_order', 'impression_leases_used_within'])
/**
 * Keys a batch's plain inserts can hit when a concurrent batch inserted the same row first: the claims'
 * (migration 0031; a batch inserting its views' claims without ON CONFLICT hits it on a repeat, and such
 * a batch holds views only, so the claim is a measured view's), the bounds' new rows (migration 0041: a
 * source's counts row of the day, a source's listed viewer) and a spent token's nonce.
 */
const RACE_KEYS = new Set(['ledger_claims_pkey', 'source_counts_pkey', 'source_day_viewers_pkey', 'spent_tokens_pkey'])

/** True when `writeBatch` (or the read before it) failed because a concurrent batch overtook this one. */
export function isRace(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string }
  return (
    RACE_CODES.has(e.code ?? '') ||
    (e.code === '23514' && INVENTORY_CONSTRAINTS.has(e.constraint ?? '')) ||
    (e.code === '23505' && RACE_KEYS.has(e.constraint ?? ''))
  )
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
  billable: boolean[] = []
  debit: number[] = []
  dwell: (number | null)[] = []
  reason: (string | null)[] = []
  viewer: string[] = []
  source: (string | null)[] = []
  offerAge: (number | null)[] = []
  topic: (string | null)[] = []
  /** The Privacy Pass token of an attested billable impression, hex (migration 0037); null otherwise. */
  token: (string | null)[] = []

  /** `billable`: an impression row always is; a click row is when a click campaign bills it. */
  push(r: LedgerRow, debitMicros: number, dwellMs: number | null, reason: string | null, billable = r.event_type === 'impression', token: Buffer | null = null): void {
    this.atMs.push(new Date(r.occurred_at).getTime())
    this.type.push(r.event_type)
    this.impression.push(r.impression_id)
    this.user.push(r.user_id)
    this.campaign.push(r.campaign_id)
    this.creative.push(r.creative_id)
    this.surface.push(r.surface)
    this.country.push(r.country ?? null)
    this.billable.push(billable)
    this.debit.push(debitMicros)
    this.dwell.push(dwellMs)
    this.reason.push(reason)
    this.viewer.push(r.viewer_key)
    this.source.push(r.source ?? null)
    this.offerAge.push(r.offer_age_ms ?? null)
    this.topic.push(r.topic ?? null)
    this.token.push(token === null ? null : token.toString('hex'))
  }
}

const eventColumns = sql`(occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country, billable, debit_micros, dwell_ms, reason, viewer_key, source, offer_age_ms, topic, attestation_token)`

/**
 * The select list turning the column arrays into ledger rows (in `eventColumns` order), then the
 * impression's id (not written: the row keeps its key, migration 0040) and, when `withOrd`, each
 * row's position in the batch (`ord`, from 1). The key is derived here once per row, for the ledger
 * row and its claim (`claimCtes`).
 */
function eventValues(e: EventColumns, withOrd = false) {
  return sql`
    timestamptz 'epoch' + r.at_ms * interval '1 millisecond' AS occurred_at, r.event_type, ledger_claim_key(r.impression_id) AS impression_key,
    r.user_id, r.campaign_id, r.creative_id, r.surface, r.country, r.billable, r.debit_micros, r.dwell_ms, r.reason, r.viewer_key, r.source,
    r.offer_age_ms, r.topic, decode(r.token, 'hex') AS attestation_token, r.impression_id
    ${withOrd ? sql`, r.ord` : sql``}
    FROM unnest(
      ${e.atMs}::int8[], ${e.type}::text[], ${e.impression}::text[], ${e.user}::text[], ${e.campaign}::text[],
      ${e.creative}::text[], ${e.surface}::text[], ${e.country}::text[], ${e.billable}::bool[], ${e.debit}::int8[], ${e.dwell}::int4[],
      ${e.reason}::text[], ${e.viewer}::text[], ${e.source}::text[], ${e.offerAge}::int4[], ${e.topic}::text[], ${e.token}::text[]
    ) WITH ORDINALITY AS r(at_ms, event_type, impression_id, user_id, campaign_id, creative_id, surface, country, billable, debit_micros, dwell_ms, reason, viewer_key, source, offer_age_ms, topic, token, ord)`
}

/**
 * The claims of a batch's rows (migration 0031, docs/decisions/0356-once-per-impression-without-a-unique-index-on-the-ledger.md), as
 * CTEs over `input` (`eventValues(e, true)`): every row claims (impression, kind), the impression
 * by its row's `impression_key` (16 bytes of the id's SHA-256, migration 0038), an `impression` and
 * a `view` sharing the kind `view`. `first_claims` keeps the first row of each claim
 * in the batch, `claimed` the claims inserted (with `skip`, a claim already held is dropped by ON
 * CONFLICT; without, it fails the statement on ledger_claims_pkey). `CLAIMED_ROW` is true for the
 * input rows to write: the first row of each claim inserted. The ledger is partitioned by
 * time, so no unique index on it can say "once per impression"; this unpartitioned table does.
 */
function claimCtes(repeats: 'skip' | 'fail') {
  return sql`
    first_claims AS (
      SELECT DISTINCT ON (impression_key, kind) ord, impression_key, kind, occurred_at
      FROM (SELECT ord, impression_key,
                   CASE WHEN event_type IN ('impression', 'view') THEN 'view' ELSE event_type END AS kind, occurred_at
            FROM input) k
      ORDER BY impression_key, kind, ord
    ),
    claimed AS (
      INSERT INTO ledger_claims (impression_key, kind, claimed_at)
      SELECT impression_key, kind, occurred_at FROM first_claims
      ${repeats === 'skip' ? sql`ON CONFLICT DO NOTHING` : sql``}
      RETURNING impression_key, kind
    )`
}
const CLAIMED_ROW = sql`(ord IN (SELECT f.ord FROM first_claims f JOIN claimed c USING (impression_key, kind)))`
const inputColumns = sql`occurred_at, event_type, impression_key, user_id, campaign_id, creative_id, surface, country, billable, debit_micros,
             dwell_ms, reason, viewer_key, source, offer_age_ms, topic, attestation_token`

/** Clicks of impression campaigns, and view reports: a repeat of an impression's click or report holds no new claim and is dropped. */
async function insertEvents(db: Db, e: EventColumns): Promise<void> {
  await executePrepared(
    db,
    sql`WITH input AS (SELECT ${eventValues(e, true)}), ${claimCtes('skip')}
      INSERT INTO ledger_events ${eventColumns} SELECT ${inputColumns} FROM input WHERE ${CLAIMED_ROW} ORDER BY ord`.compile(db),
  )
}

/**
 * Writes reports of views that are never billed and are not a measured view: a repeat of a measured
 * impression (`repeat_view`) and a view reported after the offer's hour (`expired_view`), migration
 * 0025. Their claims (`repeat_view`, `expired_view`: migration 0031) keep at most one of each per
 * impression, and a replay holds no new claim and is dropped: a client replaying one impression id grows the ledger by at most two
 * rows. Committed apart from the view batches (src/serving/ledger-writer.ts), never billing.
 */
export async function writeViewReports(db: Db, e: EventColumns): Promise<void> {
  await insertEvents(db, e)
}

/** A batch's rows of click campaigns (docs/serving.md (decision 0111)). */
export interface ClickCampaignRows {
  /** The click campaigns the batch writes rows of: their qualified views and clicks are counted (`click_ctr_counts`). */
  campaignIds: string[]
  /** Billable clicks the batch writes: each takes its viewer's day on its campaign (`viewer_click_days`). */
  billableClicks: number
}

/** One lease a batch bills on: `n` numbers from `expectedUsed` on (src/serving/leases.ts). */
export interface LeaseTake {
  leaseId: number
  expectedUsed: number
  n: number
}

/**
 * Writes one batch of views (with any clicks) and commits it in one statement
 * (data-modifying CTEs, autocommit): the events, with every impression's debit already priced from
 * the lease number it bills (`impressionDebitMicros(cpm, n)`, src/serving/leases.ts), the `used` of
 * each lease it bills on, and the viewers' last billable instants. No campaign or block row is
 * touched and nothing is locked but the instance's own lease rows: the campaigns' billed counts,
 * spend, completion and block statuses move when leases settle (src/store/leases.ts).
 *
 * The statement re-checks what the judgment relied on, and aborts as a whole (`isRace`) when the
 * store moved under it, after which the batch is judged again:
 *  - inventory, cancellation and price: each lease row must still be `holder`'s with the `used` the
 *    batch priced from, and `used <= size` is a CHECK constraint; revoking (cancel) shrinks a lease
 *    to what it used, and an expired lease settled by another instance is no longer `holder`'s;
 *  - the ten-second rule: a viewer's slot (`viewer_last_billable`) moves only forward after ten
 *    seconds (an upsert on its key);
 *  - the sources' bounds (`limits`, domain/invalid-traffic.ts): every billable row with a source
 *    takes its viewer's place among the source's viewers of the UTC day and one unit of the source's
 *    UTC hour (one `source_counts` row per source and day, holding the day's first viewer, and a
 *    `source_day_viewers` row for each other viewer: migration 0041); an IPv6 source's row does the
 *    same for its /48, under the /48's key (`2001:db8:1::/48`, `boundKeysOf`) and the /48 limits.
 *    The counts move only within the bounds, so no number of instances passes them; a viewer counts
 *    as new only when the statement's snapshot does not hold it, and a concurrent batch that inserted
 *    the same counts row or listed viewer first fails this statement on the row's key (`isRace`), so
 *    a retried or replayed view never counts twice;
 *  - repeats: each measured view, click or report claims its impression first (`ledger_claims`,
 *    migration 0031; `claimCtes`) and is written only with a new claim. A batch judged from the
 *    store claims with ON CONFLICT DO NOTHING (`repeats: 'skip'`), so a claim already held drops
 *    a concurrent repeat of a non-billable view (that view is then a
 *    repeat, listed in `lost`); a dropped billable one aborts the batch,
 *    since its debit was priced in sequence with the others. A batch
 *    judged from known state did not look for repeats at all: it inserts
 *    without ON CONFLICT (`repeats: 'fail'`), and a repeat fails the statement
 *    on the claims' key (23505), after which the batch is judged again from the
 *    store. Skipping ON CONFLICT's pre-check of every unique index saves
 *    PostgreSQL about 5-10 % of its CPU a view (docs/performance.md);
 *  - clicks on click campaigns (`clickRows`; a batch without them runs the statement without these
 *    parts): every billable click is written (a concurrent repeat dropped by ON CONFLICT fails the
 *    check, since it was priced in sequence) and takes its viewer's UTC day on the campaign, which
 *    must still be free. The same statement counts the click campaigns' qualified views and clicks
 *    in this instance's rows of `click_ctr_counts` (the auction's CTR estimate).
 */
export async function writeBatch(
  db: Db,
  now: Date,
  e: EventColumns,
  holder: string,
  leases: readonly LeaseTake[],
  expectBillable: number,
  repeats: 'skip' | 'fail',
  limits: SourceLimits,
  clickRows: ClickCampaignRows | null = null,
): Promise<{ lost: string[] | null }> {
  const nowMs = now.getTime()
  const day = utcDay(nowMs)
  const hour = new Date(utcHourStart(nowMs))
  // The /48 of each IPv6 source among the rows (domain/invalid-traffic.ts#boundKeysOf).
  const prefixes = [...new Set(e.source)].flatMap((s) => {
    const prefix = s === null ? null : prefix48Of(s)
    return s === null || prefix === null ? [] : [[s, prefix] as const]
  })
  if (clickRows === null && !e.type.some((t) => t === 'impression' || t === 'view')) {
    // Clicks of impression campaigns only: nothing to judge or re-check.
    if (e.type.length > 0) await insertEvents(db, e)
    return { lost: null }
  }
  // Prepared (src/store/db.ts#executePrepared): its planning cost more than its execution.
  const { rows } = await executePrepared(
    db,
    sql<{ ok: boolean; lost: string[] | null }>`
    WITH input AS (SELECT ${eventValues(e, true)}),
    ${claimCtes(repeats)},
    ins AS (
      INSERT INTO ledger_events ${eventColumns}
      SELECT ${inputColumns}
      FROM input WHERE ${CLAIMED_ROW} ORDER BY ord
      RETURNING event_type, impression_key, surface, viewer_key, campaign_id, billable, source, attestation_token
    ),
    -- An attested impression is bounded by its account's tokens, not its source (docs/attestation.md).
    units AS (SELECT source, viewer_key FROM ins WHERE billable AND source IS NOT NULL AND attestation_token IS NULL),
    -- Each unit counts for its source and, an IPv6 source's, for its /48 too (domain/invalid-traffic.ts#boundKeysOf).
    unit_keys AS (
      SELECT source, viewer_key FROM units
      UNION ALL
      SELECT p.prefix, u.viewer_key FROM units u
        JOIN unnest(${prefixes.map((p) => p[0])}::text[], ${prefixes.map((p) => p[1])}::text[]) AS p(source, prefix) ON p.source = u.source
    ),
    -- Each token bills once: its nonce (bytes 3-34) is claimed here by a plain insert; one held already fails the
    -- statement on spent_tokens_pkey (isRace), and the batch is judged again from the store, which finds it spent.
    spent AS (
      INSERT INTO spent_tokens (nonce, token_key_id, spent_at)
      SELECT substring(attestation_token FROM 3 FOR 32), substring(attestation_token FROM 67 FOR 32), ${now}::timestamptz
      FROM ins WHERE attestation_token IS NOT NULL
      RETURNING 1
    ),
    -- The bounds' rows (migration 0041): a source's first viewer of the day is kept in its counts row,
    -- its other viewers in source_day_viewers. What the store holds of the batch's pairs is read by
    -- source_day_state (one index probe a pair, whatever the tables' statistics); a new counts row or
    -- listed viewer is a plain insert, and one a concurrent batch inserted first fails this statement
    -- on its key (isRace).
    unit_pairs AS (SELECT source, viewer_key, count(*)::int AS units FROM unit_keys GROUP BY source, viewer_key),
    pair_state AS (
      SELECT * FROM source_day_state(
        (SELECT array_agg(source) FROM unit_pairs), (SELECT array_agg(viewer_key) FROM unit_pairs), (SELECT array_agg(units) FROM unit_pairs), ${day}::date)
    ),
    -- Per pair: is the viewer new to its source today (neither its first viewer nor listed), and is it
    -- the first viewer of a source new today (its least new viewer)? No join: a batch of 2,000 views
    -- costs what 2,000 rows cost, whatever the plan's estimates.
    flags AS (
      SELECT source, viewer_key, units, counted, new_viewer,
        new_viewer AND NOT counted AND viewer_key = min(viewer_key) FILTER (WHERE new_viewer) OVER (PARTITION BY source) AS is_first
      FROM (SELECT *, first_viewer IS DISTINCT FROM viewer_key AND NOT listed AS new_viewer FROM pair_state) p
    ),
    listed AS (
      INSERT INTO source_day_viewers (source, day, viewer_key)
      SELECT source, ${day}::date, viewer_key FROM flags WHERE new_viewer AND NOT is_first
      RETURNING 1
    ),
    source_use AS (
      SELECT source, bool_or(counted) AS counted, sum(units)::int AS units, (count(*) FILTER (WHERE new_viewer))::int AS viewers,
        min(viewer_key) FILTER (WHERE is_first) AS first_viewer,
        CASE WHEN source LIKE '%/48' THEN ${limits.maxViewersPer48PerDay}::int ELSE ${limits.maxViewersPerDay}::int END AS max_viewers,
        CASE WHEN source LIKE '%/48' THEN ${limits.maxBillablePer48PerHour}::int ELSE ${limits.maxBillablePerHour}::int END AS max_hour
      FROM flags GROUP BY source
    ),
    counts_new AS (
      INSERT INTO source_counts (source, day, first_viewer, viewers, hour, hour_billable)
      SELECT s.source, ${day}::date, s.first_viewer, s.viewers, ${hour}::timestamptz, s.units
      FROM source_use s
      WHERE NOT s.counted AND s.viewers <= s.max_viewers AND s.units <= s.max_hour
      RETURNING 1
    ),
    -- A counted source's row moves by its key (the upsert's arbiter index) and only within the bounds:
    -- a row past one is not updated, and the check below fails.
    counts_moved AS (
      INSERT INTO source_counts AS c (source, day, viewers, hour, hour_billable)
      SELECT s.source, ${day}::date, s.viewers, ${hour}::timestamptz, s.units FROM source_use s WHERE s.counted
      ON CONFLICT (source, day) DO UPDATE SET
        viewers = c.viewers + excluded.viewers,
        hour = excluded.hour,
        hour_billable = CASE WHEN c.hour = excluded.hour THEN c.hour_billable ELSE 0 END + excluded.hour_billable
      WHERE c.viewers + excluded.viewers <= CASE WHEN c.source LIKE '%/48' THEN ${limits.maxViewersPer48PerDay}::int ELSE ${limits.maxViewersPerDay}::int END
        AND CASE WHEN c.hour = excluded.hour THEN c.hour_billable ELSE 0 END + excluded.hour_billable
          <= CASE WHEN c.source LIKE '%/48' THEN ${limits.maxBillablePer48PerHour}::int ELSE ${limits.maxBillablePerHour}::int END
      RETURNING 1
    ),
    lease AS (
      UPDATE impression_leases l SET used = l.used + s.n
      FROM unnest(${leases.map((l) => l.leaseId)}::int8[], ${leases.map((l) => l.expectedUsed)}::int4[], ${leases.map((l) => l.n)}::int4[])
        AS s(lease_id, expected, n)
      WHERE l.lease_id = s.lease_id AND l.holder = ${holder}::text AND l.used = s.expected
      RETURNING 1
    ),
    -- The ten-second rule: a viewer's slot moves only ten seconds after its last billable view.
    freq AS (
      INSERT INTO viewer_last_billable AS v (viewer_key, surface, billed_at_ms)
      SELECT viewer_key, surface, ${nowMs}::int8 FROM ins WHERE event_type = 'impression'
      ON CONFLICT (viewer_key, surface) DO UPDATE SET billed_at_ms = excluded.billed_at_ms
        WHERE v.billed_at_ms <= excluded.billed_at_ms - ${VIEWER_FREQUENCY_MS}::int8
      RETURNING 1
    )${
      clickRows
        ? sql`,
    click_days AS (
      INSERT INTO viewer_click_days (campaign_id, viewer_key, day)
      SELECT campaign_id, viewer_key, ${utcDay(nowMs)}::date FROM ins WHERE event_type = 'click' AND billable
      ON CONFLICT DO NOTHING
      RETURNING 1
    ),
    ctr AS (
      INSERT INTO click_ctr_counts AS k (campaign_id, surface, holder, impressions, clicks)
      SELECT campaign_id, surface, ${holder}::text, count(*) FILTER (WHERE event_type = 'impression'), count(*) FILTER (WHERE event_type = 'click')
      FROM ins WHERE event_type IN ('impression', 'click') AND campaign_id = ANY(${clickRows.campaignIds}::text[])
      GROUP BY campaign_id, surface
      ON CONFLICT (campaign_id, surface, holder) DO UPDATE SET impressions = k.impressions + excluded.impressions, clicks = k.clicks + excluded.clicks
      RETURNING 1
    )`
        : sql``
    }
    SELECT
      ledger_batch_check(
        (SELECT count(*) FROM freq) = (SELECT count(*) FROM ins WHERE event_type = 'impression')
        -- Every impression judged billable is written: a dropped one (a concurrent repeat) would leave
        -- a gap in the lease's numbers priced above, so the batch is judged again from the store.
        AND (SELECT count(*) FROM ins WHERE event_type = 'impression') = ${expectBillable}::int
        AND (SELECT count(*) FROM lease) = ${leases.length}::int
        -- Every source and /48 stays within its bounds (an upsert past one updates nothing).
        AND (SELECT count(*) FROM counts_new) + (SELECT count(*) FROM counts_moved) = (SELECT count(*) FROM source_use)
        -- Every attested impression's token was unspent (a concurrent batch spent it: judged again from the store).
        AND (SELECT count(*) FROM spent) = (SELECT count(*) FROM ins WHERE attestation_token IS NOT NULL)
        ${
          clickRows
            ? sql`AND (SELECT count(*) FROM ins WHERE event_type = 'click' AND billable) = ${clickRows.billableClicks}::int
        AND (SELECT count(*) FROM click_days) = ${clickRows.billableClicks}::int`
            : sql``
        }
      ) AS ok,
      -- Views whose claim was held already (dropped by ON CONFLICT); a claim insert without it writes every claim or fails.
      ${
        repeats === 'skip'
          ? sql`(SELECT json_agg(r.impression_id) FROM input r
        WHERE r.event_type IN ('impression', 'view')
          AND NOT EXISTS (SELECT 1 FROM ins i WHERE i.impression_key = r.impression_key AND i.event_type = r.event_type))`
          : sql`NULL::json`
      } AS lost
  `.compile(db),
  )
  return { lost: rows[0]!.lost }
}
