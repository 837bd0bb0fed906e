import { sql } from 'kysely'
import { executePrepared, type Db } from './db.ts'

/** Decisions one serving instance counted in one UTC minute for one topic ('' = all decisions), migration 0036. */
export interface TopicDecisionCount {
  minuteMs: number
  topic: string
  decisions: number
}

/** Adds counted decisions to `topic_decision_counts`, one row per key, in one statement (the keys of one call are distinct). */
export async function addTopicDecisionCounts(db: Db, counts: readonly TopicDecisionCount[]): Promise<void> {
  if (counts.length === 0) return
  await executePrepared(
    db,
    sql`
    INSERT INTO topic_decision_counts AS t (minute, topic, decisions)
    SELECT timestamptz 'epoch' + r.minute_ms * interval '1 millisecond', r.topic, r.decisions
    FROM unnest(${counts.map((c) => c.minuteMs)}::int8[], ${counts.map((c) => c.topic)}::text[], ${counts.map((c) => c.decisions)}::int8[])
      AS r(minute_ms, topic, decisions)
    ON CONFLICT (minute, topic) DO UPDATE SET decisions = t.decisions + excluded.decisions`.compile(db),
  )
}

/** Deletes the counts of the minutes before `before`; returns how many rows went. */
export async function pruneTopicDecisionCounts(db: Db, before: Date): Promise<number> {
  const res = await db.deleteFrom('topic_decision_counts').where('minute', '<', before).executeTakeFirst()
  return Number(res.numDeletedRows)
}
