import { sql } from 'kysely'
import { executePrepared, type Db } from './db.ts'
import { viewerSlot, type LedgerState, type ViewToJudge } from '../domain/delivery.ts'
import { clickDaySlot, utcDay, type ClickState, type ClickToJudge } from '../domain/clicks.ts'
import { utcHourStart, type SourceUse } from '../domain/invalid-traffic.ts'
import type { Source } from '../domain/traffic-source.ts'

// What a ledger batch is judged against when this instance does not know it (claims of views and
// clicks, viewers' last billable instants and billable click days, the sources' counts), and the
// purge of the day tallies that decide nothing again. The batch statement that writes them is
// ledger.ts#writeBatch; the judging is the serving layer's (src/serving/ledger-batch.ts).

/** What the store reads about a measured view: its impression, campaign and viewer slot. */
export type ViewKeys = Pick<ViewToJudge, 'impressionId' | 'campaignId' | 'viewerKey' | 'surface' | 'nonce'>

/**
 * One statement reading what a batch of views is judged against besides its leases: views already
 * recorded for these impressions and each viewer's last billable instant.
 */
export async function readLedgerState(db: Db, views: readonly ViewKeys[]): Promise<Pick<LedgerState, 'recorded' | 'lastBillableMs' | 'spentNonces'>> {
  const ids = views.map((v) => v.impressionId)
  const nonces = views.flatMap((v) => (v.nonce === null ? [] : [v.nonce]))
  // Probed by the whole primary key (viewer, surface): one index lookup each, also before ANALYZE.
  const slots = [...new Map(views.map((v) => [viewerSlot(v.viewerKey, v.surface), [v.viewerKey, v.surface] as const])).values()]
  const { rows } = await executePrepared(
    db,
    sql<{
    recorded: string[] | null
    last_billable: [string, string, number][] | null
    spent: string[] | null
  }>`
    SELECT
      (SELECT json_agg(r.id) FROM unnest(${ids}::text[]) AS r(id)
        WHERE EXISTS (SELECT 1 FROM ledger_claims c WHERE c.impression_key = ledger_claim_key(r.id) AND c.kind = 'view')) AS recorded,
      (SELECT json_agg(json_build_array(v.viewer_key, v.surface, v.billed_at_ms))
        FROM unnest(${slots.map((s) => s[0])}::text[], ${slots.map((s) => s[1])}::text[]) AS k(viewer_key, surface)
        JOIN viewer_last_billable v ON v.viewer_key = k.viewer_key AND v.surface = k.surface) AS last_billable,
      (SELECT json_agg(encode(s.nonce, 'hex')) FROM spent_tokens s
        WHERE s.nonce IN (SELECT decode(n, 'hex') FROM unnest(${nonces}::text[]) AS n)) AS spent
  `.compile(db),
  )
  const r = rows[0]!
  return {
    recorded: new Set(r.recorded ?? []),
    lastBillableMs: new Map((r.last_billable ?? []).map(([viewer, surface, at]) => [viewerSlot(viewer, surface), at])),
    spentNonces: new Set(r.spent ?? []),
  }
}

/**
 * What a batch of clicks on click campaigns is judged against besides its leases, in one statement:
 * impressions already clicked, and viewers who already have a billable click on the campaign on the
 * UTC day of `nowMs` (`viewer_click_days`, migration 0024).
 */
export async function readClickState(db: Db, clicks: readonly ClickToJudge[], nowMs: number): Promise<Pick<ClickState, 'clicked' | 'billedDays'>> {
  const day = utcDay(nowMs)
  const { rows } = await executePrepared(
    db,
    sql<{ clicked: string[] | null; days: [string, string][] | null }>`
    SELECT
      (SELECT json_agg(r.id) FROM unnest(${clicks.map((k) => k.impressionId)}::text[]) AS r(id)
        WHERE EXISTS (SELECT 1 FROM ledger_claims c WHERE c.impression_key = ledger_claim_key(r.id) AND c.kind = 'click')) AS clicked,
      (SELECT json_agg(json_build_array(d.campaign_id, d.viewer_key))
        FROM unnest(${clicks.map((k) => k.campaignId)}::text[], ${clicks.map((k) => k.viewerKey)}::text[]) AS k(campaign_id, viewer_key)
        JOIN viewer_click_days d ON d.campaign_id = k.campaign_id AND d.viewer_key = k.viewer_key AND d.day = ${day}::date) AS days
  `.compile(db),
  )
  const r = rows[0]!
  return { clicked: new Set(r.clicked ?? []), billedDays: new Set((r.days ?? []).map(([campaign, viewer]) => clickDaySlot(campaign, viewer, day))) }
}

/**
 * What the store knows of the sources of a batch's billable candidates (`pairs`: source and viewer;
 * a source here is any key of `domain/invalid-traffic.ts#boundKeysOf`, an IPv6 /48 too):
 * per key, its viewers of the UTC day of `nowMs` (how many, and which of the batch's are among
 * them: the counts row's first viewer or a `source_day_viewers` row) and its billable units of the UTC hour. One statement; read only when a batch is judged
 * from the store.
 */
export async function readSourceUse(db: Db, pairs: readonly { source: Source; viewerKey: string }[], nowMs: number): Promise<Map<Source, SourceUse>> {
  const use = new Map<Source, { viewers: number; knownViewers: Set<string>; billedThisHour: number }>()
  if (pairs.length === 0) return use
  // One index probe a pair, whatever the tables' statistics (source_day_state, migration 0041).
  const { rows } = await executePrepared(
    db,
    sql<{ days: [string, number, number][] | null; members: [string, string][] | null }>`
    WITH state AS (
      SELECT * FROM source_day_state(${pairs.map((p) => p.source)}::text[], ${pairs.map((p) => p.viewerKey)}::text[], ${pairs.map(() => 1)}::int4[], ${utcDay(nowMs)}::date)
    )
    SELECT
      (SELECT json_agg(DISTINCT jsonb_build_array(source, viewers, CASE WHEN hour = ${new Date(utcHourStart(nowMs))}::timestamptz THEN hour_billable ELSE 0 END))
        FROM state WHERE counted) AS days,
      -- A source's viewer of the day is its counts row's first viewer or a listed one.
      (SELECT json_agg(json_build_array(source, viewer_key)) FROM state WHERE listed OR first_viewer = viewer_key) AS members
  `.compile(db),
  )
  const r = rows[0]!
  const of = (source: string) => {
    let u = use.get(source)
    if (!u) use.set(source, (u = { viewers: 0, knownViewers: new Set(), billedThisHour: 0 }))
    return u
  }
  for (const [source, viewers, billedThisHour] of r.days ?? []) Object.assign(of(source), { viewers, billedThisHour })
  for (const [source, viewer] of r.members ?? []) of(source).knownViewers.add(viewer)
  return use
}

/** Deletes the sources' counts of the days before `keepFrom` (a UTC day, YYYY-MM-DD): they decide nothing again. */
export async function purgeSourceCounts(db: Db, keepFrom: string): Promise<number> {
  const viewers = await db.deleteFrom('source_day_viewers').where('day', '<', keepFrom).executeTakeFirst()
  const counts = await db.deleteFrom('source_counts').where('day', '<', keepFrom).executeTakeFirst()
  return Number(viewers.numDeletedRows) + Number(counts.numDeletedRows)
}

/**
 * Deletes the billable-click days (`viewer_click_days`) before `keepFrom` (a UTC day, YYYY-MM-DD):
 * a click is judged against its own UTC day only, so past days never decide anything again.
 */
export async function purgeClickDays(db: Db, keepFrom: string): Promise<number> {
  const res = await db.deleteFrom('viewer_click_days').where('day', '<', keepFrom).executeTakeFirst()
  return Number(res.numDeletedRows)
}
