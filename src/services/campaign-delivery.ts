import { bucketsOf } from '../domain/chart-geometry.ts'
import { deliveryChartPlan } from '../domain/delivery-chart.ts'
import type { NonBillableCounts } from '../domain/delivery.ts'
import { sumNonBillable, type Granularity } from '../domain/stats.ts'
import type { TopicReportRow } from '../domain/topics.ts'
import type { ServiceContext } from './context.ts'
import { getStats } from './stats.ts'

export interface DeliveryBucket {
  /** The bucket's start, epoch ms (UTC). */
  bucketMs: number
  /** Its end (exclusive). */
  endMs: number
  billable_impressions: number
  spend_micros: number
}

export interface CampaignDelivery {
  granularity: Granularity
  startMs: number
  endMs: number
  /** When it was read (the clock's now): the bucket holding it is still in progress. */
  nowMs: number
  /** Every bucket of [start, end), zero buckets included, in time order. */
  buckets: DeliveryBucket[]
  /** Over the whole window: billable impressions, `clicks` (a share of them: the campaign's CTR), spend, and the recorded views not billed, by reason. */
  totals: { billable_impressions: number; attested_billable_impressions: number; clicks: number; spend_micros: number; non_billable: NonBillableCounts }
}

/**
 * A campaign's impressions and spend over time, for its delivery chart. The
 * window is domain/delivery-chart.ts#deliveryChartPlan's; every part of it is
 * read through getStats, the use case of GET /v1/stats, with the campaign as
 * its filter, so the chart has the API's windows, limits, ownership check
 * (404) and errors (400 `window_too_costly`, 503 while reporting is off).
 */
export async function readCampaignDelivery(
  ctx: ServiceContext,
  userId: string,
  campaignId: string,
  createdAt: Date,
  /** One surface or one country only (the public report's breakdowns); the whole campaign when absent. */
  filter: { surface?: string; country?: string } = {},
): Promise<CampaignDelivery> {
  const nowMs = ctx.clock.nowMs()
  const plan = deliveryChartPlan(createdAt.getTime(), nowMs)
  const results = await Promise.all(
    plan.parts.map((part) =>
      getStats(ctx, userId, {
        granularity: plan.granularity,
        start: new Date(part.startMs).toISOString(),
        end: new Date(part.endMs).toISOString(),
        campaign_id: campaignId,
        ...filter,
      }),
    ),
  )
  const byBucket = new Map<number, { billable_impressions: number; spend_micros: number }>()
  for (const point of results.flatMap((r) => r.points)) byBucket.set(Date.parse(point.bucket), point)
  const buckets = bucketsOf(plan.window, plan.granularity).map(({ startMs: bucketMs, endMs }) => ({
    bucketMs,
    endMs,
    billable_impressions: byBucket.get(bucketMs)?.billable_impressions ?? 0,
    spend_micros: byBucket.get(bucketMs)?.spend_micros ?? 0,
  }))
  return {
    granularity: plan.granularity,
    startMs: plan.window.startMs,
    endMs: plan.window.endMs,
    nowMs,
    buckets,
    totals: {
      billable_impressions: results.reduce((n, r) => n + r.totals.billable_impressions, 0),
      attested_billable_impressions: results.reduce((n, r) => n + r.totals.attested_billable_impressions, 0),
      clicks: results.reduce((n, r) => n + r.totals.clicks, 0),
      spend_micros: results.reduce((n, r) => n + r.totals.spend_micros, 0),
      non_billable: sumNonBillable(results.map((r) => r.totals.non_billable)),
    },
  }
}

/**
 * A campaign's billable impressions by topic over its delivery chart's window, as GET /v1/stats
 * group_by=topic gives them (topics under ten impressions summed as `other`), for the campaign
 * page only: the public report never shows topics. Read through getStats, so the same refusals apply.
 */
export async function readDeliveryByTopic(ctx: ServiceContext, userId: string, campaignId: string, createdAt: Date): Promise<TopicReportRow[]> {
  const plan = deliveryChartPlan(createdAt.getTime(), ctx.clock.nowMs())
  const stats = await getStats(ctx, userId, {
    granularity: plan.granularity,
    start: new Date(plan.window.startMs).toISOString(),
    end: new Date(plan.window.endMs).toISOString(),
    campaign_id: campaignId,
    group_by: 'topic',
  })
  return stats.topics ?? []
}
