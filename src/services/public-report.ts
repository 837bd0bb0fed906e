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
  delivery: { granularity: CampaignDelivery['granularity']; buckets: { t: Date; impressions: number }[] } | null
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

export async function readPublicReport(ctx: ServiceContext, reportUuid: string): Promise<PublicReport> {
  if (!REPORT_UUID_RE.test(reportUuid)) throw notFound('report')
  const shared = await findSharedCampaign(ctx.db, reportUuid)
  if (!shared) throw notFound('report')
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
      buckets: series.buckets.map((b) => ({ t: new Date(b.bucketMs), impressions: b.billable_impressions })),
    },
    by_surface: surfaces.flatMap((surface, i) => total(parts[i]).map((impressions) => ({ surface, impressions }))),
    by_country: countries.flatMap((country, i) => total(parts[surfaces.length + i]).map((impressions) => ({ country, impressions }))),
  }
}
