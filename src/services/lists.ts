import { decodeCursor, pageOf, PAGE_LIMIT_DEFAULT, type ListName } from '../domain/pagination.ts'
import { listCampaignGraphs, type CampaignGraph } from '../store/campaigns.ts'
import { listExportJobs, type ExportJobRow } from '../store/export-jobs.ts'
import type { ServiceContext } from './context.ts'

export interface PageRequest {
  /** 1 to PAGE_LIMIT_MAX (the route schema bounds it); PAGE_LIMIT_DEFAULT when absent. */
  limit?: number
  cursor?: string
}

export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** GET /campaigns: newest first by creation order; the key is the campaign's creation sequence. */
export async function listCampaigns(ctx: ServiceContext, userId: string, req: PageRequest): Promise<Page<CampaignGraph>> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT
  const beforeSeq =
    req.cursor === undefined
      ? null
      : decodeCursor('campaigns', req.cursor, ([seq, ...rest]) => (rest.length === 0 && Number.isSafeInteger(seq) && Number(seq) > 0 ? Number(seq) : null))
  const rows = await listCampaignGraphs(ctx.db, userId, { rows: limit + 1, beforeSeq })
  return pageOf(rows, limit, (g) => [g.campaign.seq], 'campaigns')
}

/**
 * The position in a list keyed by an instant and an id (exports, accounts,
 * invoices, the moderation queue). Instants come from the service clock in
 * whole milliseconds, so the cursor's ISO timestamp is exact.
 */
export function decodeInstantCursor(list: ListName, cursor: string): { at: Date; id: string } {
  return decodeCursor(list, cursor, ([at, id, ...rest]) => {
    if (rest.length > 0 || typeof at !== 'string' || typeof id !== 'string' || id === '') return null
    const instant = new Date(at)
    return Number.isNaN(instant.getTime()) || instant.toISOString() !== at ? null : { at: instant, id }
  })
}

/** GET /exports: newest first by (created_at, export_id). */
export async function listExports(ctx: ServiceContext, userId: string, req: PageRequest): Promise<Page<ExportJobRow>> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT
  const cursor = req.cursor === undefined ? null : decodeInstantCursor('exports', req.cursor)
  const before = cursor === null ? null : { createdAt: cursor.at, exportId: cursor.id }
  const rows = await listExportJobs(ctx.db, userId, { rows: limit + 1, before })
  return pageOf(rows, limit, (j) => [j.created_at.toISOString(), j.export_id], 'exports')
}
