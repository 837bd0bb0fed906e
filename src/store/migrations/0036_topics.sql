-- Topic targeting (issue 40; operations.md section 2, "Topics"; src/domain/topics.ts).
--
-- 1. A campaign may target up to 10 topics of the published vocabulary; NULL: every decision.
--    Names are kept as sent (checked against the vocabulary at create): a topic later removed
--    from the vocabulary stays on the campaign and simply stops matching.
ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS target_topics text[];

-- 2. The topic a billable impression is attributed to (sealed in the impression id at the
--    decision, written with the view): the first of the decision's topics the campaign targets,
--    or for a campaign without topics the decision's first topic; NULL when the decision carried
--    none. /v1/stats group_by=topic counts a campaign's billable impressions by it. On the
--    partitioned parent: every partition gets the column.
ALTER TABLE ledger_events ADD COLUMN IF NOT EXISTS topic text;

-- 3. Decisions counted by topic, not stored (like offer_counts, migration 0030): each serving
--    instance counts per UTC minute every decision ('' = all decisions) and every decision that
--    carried each topic, and adds the counts every few seconds. The auction quote estimates the
--    share of recent decisions that carried a bid's topics from them.
CREATE TABLE IF NOT EXISTS topic_decision_counts (
  minute     timestamptz NOT NULL,
  topic      text NOT NULL,
  decisions  bigint NOT NULL CHECK (decisions > 0),
  PRIMARY KEY (minute, topic)
);
