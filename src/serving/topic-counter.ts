import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../store/db.ts'
import { addTopicDecisionCounts } from '../store/topic-counts.ts'
import { MinuteCounter } from './minute-counter.ts'

/** The key of every decision, whatever its topics (the share's denominator). */
export const ALL_DECISIONS = ''

/**
 * Decisions counted by topic, not stored (migration 0036), the way offers are: each decision adds
 * one to its UTC minute's count of all decisions and one to each topic it carried (normalised: at
 * most 5); the counts go to `topic_decision_counts` as minute-counter.ts flushes them (every 2 s,
 * one upsert row per minute and topic, at shutdown and on `flush`; a failed flush puts its counts
 * back). The auction quote reads them (`store/quote.ts#readTopicDecisionCounts`). Counts are
 * estimates, never money.
 */
export class TopicCounter extends MinuteCounter<string> {
  constructor(db: Db, log: FastifyBaseLogger) {
    super('topic counts', (counts) => addTopicDecisionCounts(db, counts.map(({ minuteMs, key, count }) => ({ minuteMs, topic: key, decisions: count }))), log)
  }

  /** Counts one decision at `atMs` carrying `topics` (already normalised). */
  count(atMs: number, topics: readonly string[]): void {
    this.add(atMs, ALL_DECISIONS, ALL_DECISIONS)
    for (const topic of topics) this.add(atMs, topic, topic)
  }
}
