import { reportingCovered } from '../domain/components.ts'
import { notFound } from '../domain/errors.ts'
import { findCreativeGraph, listCreatives, type CampaignGraph } from '../store/campaigns.ts'
import { creativeLifetimeMetrics, type CreativeMetrics } from '../store/creative-metrics.ts'
import type { ServiceContext } from './context.ts'
import { readReportingState } from './status.ts'

/** GET /creatives: the account's creatives, newest first, at most `limit`. */
export async function listAccountCreatives(ctx: ServiceContext, userId: string, limit: number): Promise<CampaignGraph[]> {
  return listCreatives(ctx.db, userId, limit)
}

/**
 * GET /creatives/{id}: the creative, with exact all-time metrics from the
 * ledger only while reporting is covered (otherwise null: never a measured zero).
 */
export async function readCreative(
  ctx: ServiceContext,
  userId: string,
  creativeId: string,
): Promise<{ graph: CampaignGraph; metrics: CreativeMetrics | null }> {
  const graph = await findCreativeGraph(ctx.db, userId, creativeId)
  if (!graph) throw notFound('creative')
  const covered = reportingCovered(await readReportingState(ctx))
  return { graph, metrics: covered ? await creativeLifetimeMetrics(ctx.db, graph.creative.creative_id) : null }
}
