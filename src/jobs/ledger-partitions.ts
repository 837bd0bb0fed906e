import type { Job } from './scheduler.ts'
import type { Db } from '../store/db.ts'
import { DAY_MS, utcMidnight } from '../domain/stats.ts'
import { claimsPrunedBefore, monthsAhead, partitionsToDrop, retainedFromAfter } from '../domain/ledger-retention.ts'
import { defaultPartitionMonths, dropPartitions, ensurePartition, listPartitions, pruneClaims, readRetainedFrom } from '../store/ledger-partitions.ts'
import { readRolledThrough } from '../store/rollups.ts'
import { pruneTopicDecisionCounts } from '../store/topic-counts.ts'
import { TOPIC_COUNTS_KEPT_MS } from '../domain/topics.ts'

/** Daily at 00:45 UTC, after the rollups (00:15) closed yesterday: a partition is dropped only once rolled up. */
export const LEDGER_PARTITIONS_OFFSET_MS = 45 * 60_000

/**
 * The ledger's partitions (docs/decisions/0355-partitions-are-created-ahead-and-the-default-partition-is-a.md, docs/decisions/0358-retention-ledger-partitions.md), on the service clock:
 *  1. creates the partitions of the current month and the next two, and of any month whose rows
 *     landed in the DEFAULT partition (moving them in), so the default stays empty;
 *  2. drops the partitions whose every day is rolled up and older than `retentionDays`
 *     (LEDGER_RETENTION_DAYS), moving `ledger_retention.retained_from` past them;
 *  3. prunes the claims that decide nothing any more;
 *  4. deletes decisions counted by topic older than TOPIC_COUNTS_KEPT_MS (migration 0036).
 * Idempotent: a rerun finds every partition there and nothing more to drop.
 */
export async function runLedgerPartitions(db: Db, now: Date, retentionDays: number): Promise<Record<string, unknown>> {
  const nowMs = now.getTime()
  const months = [...new Set([...monthsAhead(nowMs), ...(await defaultPartitionMonths(db))])].sort()
  let created = 0
  for (const month of months) if (await ensurePartition(db, month)) created++
  const [partitions, rolledThrough, retained] = await Promise.all([listPartitions(db), readRolledThrough(db), readRetainedFrom(db)])
  const dropped = partitionsToDrop(partitions, nowMs, retentionDays, rolledThrough)
  const retainedFrom = retainedFromAfter(dropped, retained)
  if (dropped.length > 0) await dropPartitions(db, dropped, retainedFrom!, now)
  const prune = claimsPrunedBefore(nowMs, retainedFrom)
  const claims = await pruneClaims(db, prune.measured, prune.all)
  const topicCounts = await pruneTopicDecisionCounts(db, new Date(nowMs - TOPIC_COUNTS_KEPT_MS))
  return {
    partitions_created: created,
    partitions_dropped: dropped.map((p) => p.name),
    retained_from: retainedFrom,
    claims_deleted: claims,
    topic_counts_deleted: topicCounts,
  }
}

export function ledgerPartitionsJob(db: Db, retentionDays: number): Job {
  return {
    name: 'ledger-partitions',
    // A run creates and drops whatever is due by now, so one run covers any gap.
    catchUp: 'latest',
    nextDue: (after) => {
      const at = utcMidnight(after.getTime()) + LEDGER_PARTITIONS_OFFSET_MS
      return new Date(at > after.getTime() ? at : at + DAY_MS)
    },
    run: (now) => runLedgerPartitions(db, now, retentionDays),
  }
}
