-- Reporting: daily rollups of the ledger, closed per UTC day, idempotently
-- (a rerun replaces a day's rows). Distinct viewers are kept per day and
-- dimension so unique_viewers stays exact over any multi-day window.

CREATE TABLE daily_rollups (
  day                   date NOT NULL,
  user_id               text NOT NULL,
  campaign_id           text NOT NULL,
  creative_id           text NOT NULL,
  surface               text NOT NULL,
  events                bigint NOT NULL,
  billable_impressions  bigint NOT NULL,
  viewable_ticks        bigint NOT NULL,
  clicks                bigint NOT NULL,
  spend_micros          bigint NOT NULL,
  PRIMARY KEY (user_id, day, campaign_id, creative_id, surface)
);

CREATE TABLE daily_viewers (
  day          date NOT NULL,
  user_id      text NOT NULL,
  campaign_id  text NOT NULL,
  creative_id  text NOT NULL,
  surface      text NOT NULL,
  viewer_key   text NOT NULL,
  PRIMARY KEY (user_id, day, campaign_id, creative_id, surface, viewer_key)
);

-- Every UTC day up to and including rolled_through is closed and rolled up
-- (a single watermark makes coverage contiguous by construction).
CREATE TABLE rollup_state (
  id              integer PRIMARY KEY CHECK (id = 1),
  rolled_through  date,
  updated_at      timestamptz
);
INSERT INTO rollup_state (id, rolled_through, updated_at) VALUES (1, NULL, NULL);

CREATE INDEX ledger_time ON ledger_events (occurred_at);
CREATE INDEX ledger_creative_time ON ledger_events (creative_id, occurred_at);
