import { ApiError, notFound } from '../domain/errors.ts'
import { REPORT_UUID_RE, reportWindow } from '../domain/public-report.ts'
import type { Granularity, MetricSet } from '../domain/stats.ts'
import { findSharedCampaign } from '../store/public-reports.ts'
import { readCampaign } from './campaigns.ts'
import type { ServiceContext } from './context.ts'
import { getStats } from './stats.ts'

/**
 * A campaign's shareable report (operations.md section 5): what anyone with
 * the link may see. It carries no email, user id, key, balance, bid or
 * billing: only the fields listed here leave this function.
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
  /** Delivery over time, from the same statistics as GET /v1/stats; null when it cannot be read now. */
  delivery: { granularity: Granularity; start: Date; end: Date; points: { bucket: Date; impressions: number }[] } | null
  /** Billable impressions per surface and, for a targeted campaign, per country, over the same window. */
  by_surface: { surface: string; impressions: number }[]
  by_country: { country: string; impressions: number }[]
}

const impressions = (m: MetricSet) => m.billable_impressions ?? 0

export async function readPublicReport(ctx: ServiceContext, reportUuid: string): Promise<PublicReport> {
  if (!REPORT_UUID_RE.test(reportUuid)) throw notFound('report')
  const shared = await findSharedCampaign(ctx.db, reportUuid)
  if (!shared) throw notFound('report')
  const { campaign: c, creative } = await readCampaign(ctx, shared.user_id, shared.campaign_id)
  const now = ctx.clock.now()
  const window = reportWindow(c.created_at, now)
  const query = { campaign_id: c.campaign_id, start: window.start.toISOString(), end: window.end.toISOString(), granularity: window.granularity }
  // A statistics refusal (reporting switched off, a window too costly to read live) hides the charts, not the report.
  const tolerant = async <T>(read: () => Promise<T>): Promise<T | null> => {
    try {
      return await read()
    } catch (err) {
      if (err instanceof ApiError && (err.status === 400 || err.status === 503)) return null
      throw err
    }
  }
  const surfaces = c.target_surface === 'blended' ? ['extension', 'terminal'] : [c.target_surface]
  const countries = c.target_countries ?? []
  const [series, ...parts] = await Promise.all([
    tolerant(() => getStats(ctx, shared.user_id, query)),
    ...surfaces.map((surface) => tolerant(() => getStats(ctx, shared.user_id, { ...query, surface }))),
    ...countries.map((country) => tolerant(() => getStats(ctx, shared.user_id, { ...query, country }))),
  ])
  const surfaceTotals = parts.slice(0, surfaces.length)
  const countryTotals = parts.slice(surfaces.length)
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
    generated_at: now,
    delivery: series && {
      ...window,
      points: series.points.map((p) => ({ bucket: new Date(p.bucket), impressions: impressions(p) })),
    },
    by_surface: surfaces.flatMap((surface, i) => (surfaceTotals[i] ? [{ surface, impressions: impressions(surfaceTotals[i].totals) }] : [])),
    by_country: countries.flatMap((country, i) => (countryTotals[i] ? [{ country, impressions: impressions(countryTotals[i].totals) }] : [])),
  }
}
