import type { Db } from './db.ts'
import type { ExportLease } from './export-jobs.ts'

// An export's artifact: the CSV in numbered chunks (export_chunks), written under the job's lease.

/**
 * Appends artifact chunks (numbered from `firstSeq`, in one transaction) while the lease still holds (the job is running
 * under this claim). The job row is read FOR SHARE, so a concurrent reclaim
 * (which updates the row and deletes the chunks) is ordered before or after
 * this insert, never interleaved. False when the lease was lost.
 */
export async function appendExportChunks(db: Db, lease: ExportLease, firstSeq: number, chunks: readonly Buffer[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const held = await trx
      .selectFrom('export_jobs')
      .select('export_id')
      .where('export_id', '=', lease.exportId)
      .where('status', '=', 'running')
      .where('started_at', '=', lease.startedAt)
      .forShare()
      .executeTakeFirst()
    if (!held) return false
    if (chunks.length > 0) {
      await trx
        .insertInto('export_chunks')
        .values(chunks.map((data, i) => ({ export_id: lease.exportId, seq: firstSeq + i, data })))
        .execute()
    }
    return true
  })
}

/** One artifact chunk, or undefined past the last one (or once purged). */
export async function readExportChunk(db: Db, exportId: string, seq: number): Promise<Buffer | undefined> {
  const row = await db.selectFrom('export_chunks').select('data').where('export_id', '=', exportId).where('seq', '=', seq).executeTakeFirst()
  return row?.data
}
