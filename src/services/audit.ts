import type { AuditAction, AuditActor } from '../domain/audit.ts'
import { PAGE_LIMIT_DEFAULT, decodeCursor, pageOf } from '../domain/pagination.ts'
import { insertAuditEntry, listAuditEntries, type AuditEntryRow, type AuditFilter } from '../store/audit.ts'
import type { AuditContext, AuditTarget, Snapshot } from './audit-targets.ts'
import type { Page, PageRequest } from './lists.ts'

/**
 * The audit log (docs/operator-console.md (decision 0212)): who (an operator, or
 * the token), what (the action), to which target, when (service clock),
 * before and after, and from which address, for every operator action
 * through the console or the token API. One place writes it: `audited`
 * wraps a use case, reads the target before and after it, and records one
 * entry once it has succeeded. The console and the token API call the same
 * wrapped use cases (operator-actions.ts), so neither can forget it.
 */

/** Who is acting and from where; the transport sets it once per request (token hook, console session). */
export interface AuditStamp {
  actor: AuditActor
  address: string
}

export interface Audited {
  audit: AuditStamp
}

export interface AuditSpec<A extends unknown[], R> {
  action: AuditAction
  target: AuditTarget
  /** The target's id from the arguments; for a creation, from the result (then `result` is set and there is no "before"). */
  id: (args: A, result?: R) => string | null
  /** What to keep as "after" instead of the target's snapshot (a job's run, a credit posted), from the snapshot and the result. */
  after?: (snapshot: Snapshot | null, result: R, args: A) => Snapshot | null
}

/**
 * Wraps a use case so that every successful call writes one audit entry.
 * A call that fails (unknown target, refused value) changed nothing and
 * records nothing. The entry is written after the use case commits (use
 * cases own their transactions, and some call the payment processor): should
 * the store fail in between, the call answers an error although the action
 * stands, rather than leaving an action the log does not show without saying so.
 */
export function audited<C extends object, A extends unknown[], R>(spec: AuditSpec<A, R>, run: (ctx: C, ...args: A) => Promise<R>) {
  return async (ctx: C & AuditContext & Audited, ...args: A): Promise<R> => {
    const beforeId = spec.id(args)
    const before = beforeId === null ? null : await spec.target.snapshot(ctx, beforeId)
    const result = await run(ctx, ...args)
    const targetId = beforeId ?? spec.id(args, result)
    const snapshot = targetId === null ? null : await spec.target.snapshot(ctx, targetId)
    const after = spec.after ? spec.after(snapshot, result, args) : snapshot
    await recordAudit(ctx, { action: spec.action, target: spec.target, targetId, before, after })
    return result
  }
}

/** Records an action that is not a use case of its own (the console's first-operator setup). */
export async function recordAudit(
  ctx: AuditContext & Audited,
  entry: { action: AuditAction; target: AuditTarget; targetId: string | null; before: Snapshot | null; after: Snapshot | null },
): Promise<void> {
  await insertAuditEntry(ctx.db, {
    at: ctx.clock.now(),
    actor_kind: ctx.audit.actor.kind,
    actor_id: ctx.audit.actor.id,
    action: entry.action,
    target_kind: entry.target.kind,
    target_id: entry.targetId,
    before: entry.before,
    after: entry.after,
    source_address: ctx.audit.address,
  })
}

export type AuditEntry = AuditEntryRow

/** The log, newest first, filtered by action and target id, one page at a time. */
export async function readAuditLog(ctx: AuditContext, filter: AuditFilter, req: PageRequest): Promise<Page<AuditEntry>> {
  const limit = req.limit ?? PAGE_LIMIT_DEFAULT
  const beforeId =
    req.cursor === undefined
      ? null
      : decodeCursor('audit', req.cursor, ([id, ...rest]) => (rest.length === 0 && Number.isSafeInteger(id) && Number(id) > 0 ? Number(id) : null))
  const rows = await listAuditEntries(ctx.db, filter, { rows: limit + 1, beforeId })
  return pageOf(rows, limit, (e) => [e.entry_id], 'audit')
}
