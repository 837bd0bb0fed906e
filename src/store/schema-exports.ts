import type { ColumnType } from 'kysely'
import type { Surface } from '../domain/auction.ts'
import type { ExportSchemaVersion } from '../domain/export-csv.ts'

type Timestamp = ColumnType<Date, Date, Date>

/** An export's window and the filter dimensions that were set, as validated when it was queued (JSON). */
export interface ExportFiltersDocument {
  start: string
  end: string
  campaign_ids?: string[]
  creative_ids?: string[]
  surfaces?: Surface[]
  countries?: string[]
}

/** Table types of the export tables (migrations/0005_exports.sql); merged into Database in schema.ts. */
export interface ExportJobsTable {
  export_id: string
  user_id: string
  status: 'queued' | 'running' | 'ready' | 'failed'
  schema_version: ExportSchemaVersion
  filters: ColumnType<ExportFiltersDocument, string, string>
  window_start: Timestamp
  window_end: Timestamp
  row_count: number | null
  size_bytes: ColumnType<number | null, number | null, number | null>
  sha256: string | null
  error_code: string | null
  created_at: Timestamp
  started_at: Timestamp | null
  finished_at: Timestamp | null
  expires_at: Timestamp
  /** How the artifact's chunks are stored (migration 0011): as served, or each chunk deflated on its own. */
  artifact_encoding: ColumnType<ArtifactEncoding, ArtifactEncoding | undefined, ArtifactEncoding>
}

export type ArtifactEncoding = 'identity' | 'deflate-raw'

/**
 * The CSV artifact, stored in order in chunks so every instance can stream it
 * with constant memory. Each chunk is a fixed-size piece of the CSV (the last
 * one shorter), stored as the job's `artifact_encoding` says.
 */
export interface ExportChunksTable {
  export_id: string
  seq: number
  data: Buffer
}

export interface ExportsTables {
  export_jobs: ExportJobsTable
  export_chunks: ExportChunksTable
}
