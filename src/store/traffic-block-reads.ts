import type { Db } from './db.ts'
import type { TrafficBlockRow } from './traffic-blocks.ts'

/**
 * Reads of the operators' block list for people (the operator API, the console and the audit log),
 * beside what the serving path reads (store/traffic-blocks.ts).
 */

/** An entry with who added it in words: a console operator's email, or null for the operator token (and an operator since removed). */
export interface TrafficBlockShown extends TrafficBlockRow {
  created_by_email: string | null
}

/** The whole list, newest first. */
export async function listTrafficBlocksShown(db: Db): Promise<TrafficBlockShown[]> {
  return db
    .selectFrom('traffic_blocks as b')
    .leftJoin('operators as o', 'o.operator_id', 'b.created_by')
    .select(['b.block_id', 'b.kind', 'b.value', 'b.note', 'b.created_at', 'b.created_by', 'o.email as created_by_email'])
    .orderBy('b.created_at', 'desc')
    .orderBy('b.block_id', 'desc')
    .execute()
}

export async function findTrafficBlock(db: Db, blockId: string): Promise<TrafficBlockRow | null> {
  return (await db.selectFrom('traffic_blocks').select(['block_id', 'kind', 'value', 'note', 'created_at', 'created_by']).where('block_id', '=', blockId).executeTakeFirst()) ?? null
}
