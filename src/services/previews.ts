import { createHash } from 'node:crypto'
import { notFound } from '../domain/errors.ts'
import type { PreviewSurface } from '../domain/campaign-order.ts'
import { randomBase62 } from '../platform/ids.ts'
import type { ServiceContext } from './context.ts'
import { findCampaignGraph } from '../store/campaigns.ts'
import { findPreview, insertPreview, revokePreview, type PreviewRow } from '../store/previews.ts'

/** Previews are 24-hour capabilities; only a digest of the token is stored. */
export const PREVIEW_TTL_MS = 24 * 3_600_000

export interface PreviewContent {
  ad_line: string
  destination_url: string
  brand: string | null
  icon_url: string | null
  target_surface: PreviewSurface
}

const digest = (token: string) => createHash('sha256').update(token).digest()

export async function createPreview(
  ctx: ServiceContext,
  userId: string,
  content: PreviewContent,
  campaignId: string | null,
): Promise<{ token: string; row: PreviewRow }> {
  const token = `pv_${randomBase62(32)}`
  const now = ctx.clock.now()
  const row: PreviewRow = {
    token_hash: digest(token),
    user_id: userId,
    campaign_id: campaignId,
    ...content,
    created_at: now,
    expires_at: new Date(now.getTime() + PREVIEW_TTL_MS),
    revoked_at: null,
  }
  await insertPreview(ctx.db, row)
  return { token, row }
}

/** Snapshots a campaign's current creative; surfaces follow the campaign's targeting. */
export async function previewCampaign(ctx: ServiceContext, userId: string, campaignId: string) {
  const graph = await findCampaignGraph(ctx.db, userId, campaignId)
  if (!graph) throw notFound('campaign')
  const surface = graph.campaign.target_surface
  return createPreview(
    ctx,
    userId,
    {
      ad_line: graph.creative.ad_line,
      destination_url: graph.creative.destination_url,
      brand: graph.creative.brand,
      icon_url: graph.creative.icon_url,
      target_surface: surface === 'extension' || surface === 'terminal' ? surface : 'both',
    },
    campaignId,
  )
}

export async function revokeOwnedPreview(ctx: ServiceContext, userId: string, token: string): Promise<void> {
  if (!(await revokePreview(ctx.db, userId, digest(token), ctx.clock.now()))) throw notFound('preview')
}

export type PublicPreview = { state: 'live'; row: PreviewRow } | { state: 'expired' | 'revoked' | 'not_found' }

export async function readPublicPreview(ctx: ServiceContext, token: string): Promise<PublicPreview> {
  const row = await findPreview(ctx.db, digest(token))
  if (!row) return { state: 'not_found' }
  if (row.revoked_at) return { state: 'revoked' }
  if (row.expires_at.getTime() <= ctx.clock.nowMs()) return { state: 'expired' }
  return { state: 'live', row }
}
