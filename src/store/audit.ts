import type { Db } from './db.ts'
import type { AuditActorKind } from './schema.ts'
import type { AuditAction, AuditTargetKind } from '../domain/audit.ts'

/** One audit entry as written: before/after are JSON-ready snapshots (no secret ever reaches them). */
export interface NewAuditEntry {
  at: Date
  actor_kind: AuditActorKind
  actor_id: string | null
  action: AuditAction
  target_kind: AuditTargetKind
  target_id: string | null
  before: unknown
  after: unknown
  source_address: string
}

/** An entry as read, with the acting operator's email when the actor is an operator. */
export interface AuditEntryRow extends NewAuditEntry {
  entry_id: number
  actor_email: string | null
}

const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))

export async function insertAuditEntry(db: Db, entry: NewAuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ ...entry, before: json(entry.before), after: json(entry.after) })
    .execute()
}

export interface AuditFilter {
  action?: AuditAction
  targetId?: string
}

/** Entries newest first (by entry_id), at most `rows`, older than `beforeId` when set; filtered by action and target id. */
export async function listAuditEntries(db: Db, filter: AuditFilter, page: { rows: number; beforeId: number | null }): Promise<AuditEntryRow[]> {
  let query = db
    .selectFrom('audit_log as a')
    .leftJoin('operators as o', 'o.operator_id', 'a.actor_id')
    .select([
      'a.entry_id',
      'a.at',
      'a.actor_kind',
      'a.actor_id',
      'o.email as actor_email',
      'a.action',
      'a.target_kind',
      'a.target_id',
      'a.before',
      'a.after',
      'a.source_address',
    ])
  if (filter.action !== undefined) query = query.where('a.action', '=', filter.action)
  if (filter.targetId !== undefined) query = query.where('a.target_id', '=', filter.targetId)
  if (page.beforeId !== null) query = query.where('a.entry_id', '<', page.beforeId)
  return query.orderBy('a.entry_id', 'desc').limit(page.rows).execute()
}
