import type { Db } from './db.ts'
import type { TrafficBlock } from '../domain/invalid-traffic.ts'

/** An entry of the operators' block list as stored (migration 0029). */
export interface TrafficBlockRow extends TrafficBlock {
  block_id: string
  note: string
  created_at: Date
  created_by: string
}

/** The whole block list, oldest first: what every serving instance holds (services/serving-limits.ts). */
export async function listTrafficBlocks(db: Db): Promise<TrafficBlockRow[]> {
  return db.selectFrom('traffic_blocks').select(['block_id', 'kind', 'value', 'note', 'created_at', 'created_by']).orderBy('created_at').orderBy('block_id').execute()
}

/** Adds an entry; an entry of the same kind and value already there is returned instead (`created` false). */
export async function insertTrafficBlock(db: Db, row: TrafficBlockRow): Promise<{ row: TrafficBlockRow; created: boolean }> {
  const inserted = await db.insertInto('traffic_blocks').values(row).onConflict((oc) => oc.columns(['kind', 'value']).doNothing()).returningAll().executeTakeFirst()
  if (inserted) return { row: inserted, created: true }
  const existing = await db.selectFrom('traffic_blocks').selectAll().where('kind', '=', row.kind).where('value', '=', row.value).executeTakeFirstOrThrow()
  return { row: existing, created: false }
}

/** Removes an entry; the removed row, or null when there was none. */
export async function deleteTrafficBlock(db: Db, blockId: string): Promise<TrafficBlockRow | null> {
  return (await db.deleteFrom('traffic_blocks').where('block_id', '=', blockId).returningAll().executeTakeFirst()) ?? null
}
