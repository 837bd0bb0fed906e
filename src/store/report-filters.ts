import type { SelectQueryBuilder } from 'kysely'
import type { Db } from './db.ts'
import type { Database } from './schema.ts'
import { notFound } from '../domain/errors.ts'
import type { ReportFilters } from '../domain/report-filters.ts'

/** Every filtered campaign and creative must be the account's own; anything else is the same 404. */
export async function assertFiltersOwned(db: Db, userId: string, f: ReportFilters): Promise<void> {
  if (f.campaignIds) {
    const rows = await db.selectFrom('campaigns').select('campaign_id').where('user_id', '=', userId).where('campaign_id', 'in', f.campaignIds).execute()
    if (rows.length !== f.campaignIds.length) throw notFound('campaign')
  }
  if (f.creativeIds) {
    const rows = await db.selectFrom('creatives').select('creative_id').where('user_id', '=', userId).where('creative_id', 'in', f.creativeIds).execute()
    if (rows.length !== f.creativeIds.length) throw notFound('creative')
  }
}

/** Applies the filters to a query over ledger_events (aliased `e`). */
export function whereLedgerFilters<O>(
  qb: SelectQueryBuilder<Database & { e: Database['ledger_events'] }, 'e', O>,
  f: ReportFilters,
): SelectQueryBuilder<Database & { e: Database['ledger_events'] }, 'e', O> {
  let q = qb
  if (f.campaignIds) q = q.where('e.campaign_id', 'in', f.campaignIds)
  if (f.creativeIds) q = q.where('e.creative_id', 'in', f.creativeIds)
  if (f.surfaces) q = q.where('e.surface', 'in', f.surfaces)
  if (f.countries) q = q.where('e.country', 'in', f.countries)
  return q
}

