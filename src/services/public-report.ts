import { ApiError, notFound } from '../domain/errors.ts'
import { REPORT_UUID_RE } from '../domain/public-report.ts'
import { findSharedCampaign } from '../store/public-reports.ts'
import { readCampaignDelivery, type CampaignDelivery } from './campaign-delivery.ts'
import { readCampaign } from './campaigns.ts'
import type { ServiceContext } from './context.ts'

/**
 * A campaign's shareable report (operations.md section 5): what anyone with
 * the link may see. It carries no email, user id, key, balance, bid, spend or
 * billing: only the fields listed here leave this function, and the page
 * renders only these.
 */
export interface PublicReport {
  name: string
  brand: string | null
  ad_line: string
  status: string
  target_surface: string
  target_countries: string[] | null
  impressions_bought: number
  impressions_delivered: number
  created_at: Date
  generated_at: Date
  /** Billable impressions over time: the campaign page's chart window, through GET /v1/stats's use case; null when statistics cannot be read now. */
  delivery: { granularity: CampaignDelivery['granularity']; startMs: number; endMs: number; buckets: { t: Date; end: Date; impressions: number }[] } | null
  /** Billable impressions per surface and, for a targeted campaign, per country, over the same window. */
  by_surface: { surface: string; impressions: number }[]
  by_country: { country: string; impressions: number }[]
}

/** A statistics refusal (reporting switched off, a window too costly to read live) hides a chart, not the report. */
async function unlessRefused<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read()
  } catch (err) {
    if (err instanceof ApiError && (err.status === 400 || err.status === 503)) return null
    throw err
  }
}

/** The figures of a shared campaign, read now: the campaign, then one stats read per chart part for the whole campaign, each surface and each targeted country. */
async function computeReport(ctx: ServiceContext, shared: { user_id: string; campaign_id: string }): Promise<PublicReport> {
  const { campaign: c, creative } = await readCampaign(ctx, shared.user_id, shared.campaign_id)
  const delivery = (filter: { surface?: string; country?: string } = {}) =>
    unlessRefused(() => readCampaignDelivery(ctx, shared.user_id, c.campaign_id, c.created_at, filter))
  const surfaces = c.target_surface === 'blended' ? ['extension', 'terminal'] : [c.target_surface]
  const countries = c.target_countries ?? []
  const [series, ...parts] = await Promise.all([
    delivery(),
    ...surfaces.map((surface) => delivery({ surface })),
    ...countries.map((country) => delivery({ country })),
  ])
  const total = (d: CampaignDelivery | null | undefined) => (d ? [d.totals.billable_impressions] : [])
  return {
    name: c.name,
    brand: creative.brand,
    ad_line: creative.ad_line,
    status: c.status,
    target_surface: c.target_surface,
    target_countries: c.target_countries,
    impressions_bought: c.impressions,
    impressions_delivered: c.impressions_billed,
    created_at: c.created_at,
    generated_at: ctx.clock.now(),
    delivery: series && {
      granularity: series.granularity,
      startMs: series.startMs,
      endMs: series.endMs,
      buckets: series.buckets.map((b) => ({ t: new Date(b.bucketMs), end: new Date(b.endMs), impressions: b.billable_impressions })),
    },
    by_surface: surfaces.flatMap((surface, i) => total(parts[i]).map((impressions) => ({ surface, impressions }))),
    by_country: countries.flatMap((country, i) => total(parts[surfaces.length + i]).map((impressions) => ({ country, impressions }))),
  }
}

/**
 * How long one instance reuses a report's figures (service time): the life of
 * the page's ETag. The page says when its figures were read ("generated …
 * UTC"), and until they are read again every view gets the same page, so the
 * same ETag, and a client that has it gets 304. Sharing is checked on every
 * view (one read by the unique index), so "Stop sharing" answers 404 at once.
 */
export const REPORT_REUSE_MS = 60_000

/**
 * What the reports one instance keeps may weigh at most, in chart buckets and
 * table rows (a report weighs 1 + its buckets + its rows: about 30 for a
 * campaign a day old, 370 for one a year old, 755 at most); the least
 * recently viewed go first. A bucket, with its Date, is about 165 bytes of
 * heap, so about 8 MB at most.
 */
export const REPORT_CACHE_MAX_WEIGHT = 50_000

/** Where a view's figures came from: read from the store now, or reused (kept, or being read for another view). */
export type ReportSource = 'store' | 'kept'

interface Kept {
  campaignId: string
  atMs: number
  report: Promise<PublicReport>
  /** 1 while the figures are being read. */
  weight: number
}

/** A report's weight in the bound: 1 + its chart buckets + its table rows. */
export const reportWeight = (r: PublicReport) => 1 + (r.delivery?.buckets.length ?? 0) + r.by_surface.length + r.by_country.length

/**
 * The report use case, for one instance (the public report route holds one):
 * a report's figures are read once per REPORT_REUSE_MS and kept, within
 * REPORT_CACHE_MAX_WEIGHT, so repeated views (and any number of concurrent
 * ones, which share one read) cost one indexed lookup each instead of up to
 * 23 stats reads. A revoked or unknown uuid is 404 and its figures are
 * dropped. `observe` learns where each view's figures came from (a metric);
 * `maxWeight` is REPORT_CACHE_MAX_WEIGHT but in tests.
 */
export function publicReportReader(
  ctx: ServiceContext,
  observe: (from: ReportSource) => void = () => {},
  maxWeight = REPORT_CACHE_MAX_WEIGHT,
): (reportUuid: string) => Promise<PublicReport> {
  // Map order is recency: a view re-inserts its report, so the first entry is the least recently viewed.
  const kept = new Map<string, Kept>()
  let weight = 0
  const forget = (reportUuid: string, only?: Kept) => {
    const entry = kept.get(reportUuid)
    if (!entry || (only && entry !== only)) return
    kept.delete(reportUuid)
    weight -= entry.weight
  }
  return async function readPublicReport(reportUuid: string): Promise<PublicReport> {
    if (!REPORT_UUID_RE.test(reportUuid)) throw notFound('report')
    const shared = await findSharedCampaign(ctx.db, reportUuid)
    if (!shared) {
      forget(reportUuid)
      throw notFound('report')
    }
    const nowMs = ctx.clock.nowMs()
    const entry = kept.get(reportUuid)
    if (entry && entry.campaignId === shared.campaign_id && nowMs >= entry.atMs && nowMs - entry.atMs < REPORT_REUSE_MS) {
      kept.delete(reportUuid)
      kept.set(reportUuid, entry)
      observe('kept')
      return entry.report
    }
    forget(reportUuid)
    const fresh: Kept = { campaignId: shared.campaign_id, atMs: nowMs, report: computeReport(ctx, shared), weight: 1 }
    kept.set(reportUuid, fresh)
    weight += 1
    observe('store')
    fresh.report.then(
      (report) => {
        if (kept.get(reportUuid) !== fresh) return
        const w = reportWeight(report)
        weight += w - fresh.weight
        fresh.weight = w
        for (const [uuid, e] of kept) {
          if (weight <= maxWeight) break
          if (e !== fresh) forget(uuid, e)
        }
      },
      // A failed read is not kept: the next view tries again.
      () => forget(reportUuid, fresh),
    )
    return fresh.report
  }
}
