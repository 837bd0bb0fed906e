-- Invalid traffic (issue 32; operations.md section 2, "Invalid traffic"; docs/invalid-traffic.md).
--
-- 1. The source of a measured view or click: the IPv4 address or IPv6 /64 that asked for its
--    decision (src/domain/traffic-source.ts), sealed in the impression id. Operators only: never
--    exported, never shown to an advertiser. Offers and rows written before this migration have none.
--    With it, the time from the decision to the view or click report (`offer_age_ms`), one of the
--    after-the-fact review's signals. The review reads a day's rows with a source by time.
ALTER TABLE ledger_events ADD COLUMN source text, ADD COLUMN offer_age_ms integer;
CREATE INDEX ledger_sourced_time ON ledger_events (occurred_at) WHERE source IS NOT NULL;

-- 2. One more reason a recorded view (or a click campaign's click) is not billable: invalid_traffic,
--    a source past its bounds or on the operators' block list.
--    And two more event types, written by the daily traffic review (src/services/traffic-review.ts)
--    for a billable impression or click it judged invalid after the fact: `voided_impression` and
--    `voided_click`, never billable, no debit (the money goes back as a credit), reason
--    invalid_traffic, at most one of each per impression, dated like the row they void so that they
--    count in its day and hour. NOT VALID: the new checks only admit more than the old ones, so
--    existing rows need no scan.
ALTER TABLE ledger_events DROP CONSTRAINT ledger_event_type_known;
ALTER TABLE ledger_events DROP CONSTRAINT ledger_view_reason_known;
ALTER TABLE ledger_events
  ADD CONSTRAINT ledger_event_type_known
    CHECK (event_type IN ('offer', 'impression', 'view', 'click', 'repeat_view', 'expired_view', 'voided_impression', 'voided_click')) NOT VALID,
  ADD CONSTRAINT ledger_view_reason_known CHECK (
    (event_type <> 'view' OR coalesce(reason IN ('short_dwell', 'too_fast', 'viewer_frequency', 'block_full', 'invalid_traffic',
                                                 'dwell_exceeds_elapsed', 'inventory_exhausted', 'campaign_cancelled'), false))
    AND (event_type <> 'repeat_view' OR reason = 'repeat')
    AND (event_type <> 'expired_view' OR reason = 'expired')
    AND (event_type NOT IN ('voided_impression', 'voided_click') OR reason = 'invalid_traffic')
  ) NOT VALID;
CREATE UNIQUE INDEX ledger_one_void ON ledger_events (impression_id, event_type) WHERE event_type IN ('voided_impression', 'voided_click');

ALTER TABLE daily_rollups ADD COLUMN nb_invalid_traffic bigint NOT NULL DEFAULT 0;
ALTER TABLE hourly_rollups ADD COLUMN nb_invalid_traffic bigint NOT NULL DEFAULT 0;
ALTER TABLE daily_account_rollups ADD COLUMN nb_invalid_traffic bigint NOT NULL DEFAULT 0;

-- 3. The per-source bounds, counted by the ledger statement that writes the billable rows
--    (src/store/ledger.ts#writeBatch): its conditional upserts never pass a bound, and a statement
--    they refuse aborts and is judged again from these rows.
--    The viewers that earned billable units from a source on a UTC day (service clock) ...
CREATE TABLE source_day_viewers (
  source      text NOT NULL,
  day         date NOT NULL,
  viewer_key  text NOT NULL,
  PRIMARY KEY (source, day, viewer_key)
);
--    ... and, in one row per source and day (one upsert per source and batch), their number (at
--    most ivt_max_viewers_per_source_per_day) and the billable units of the source's latest UTC hour
--    of the day (at most ivt_max_billable_per_source_per_hour).
CREATE TABLE source_counts (
  source         text NOT NULL,
  day            date NOT NULL,
  viewers        integer NOT NULL CHECK (viewers >= 0),
  hour           timestamptz NOT NULL,
  hour_billable  integer NOT NULL CHECK (hour_billable >= 0),
  PRIMARY KEY (source, day)
);

-- 4. The operators' block list: address ranges (CIDR) and viewer keys whose views never bill.
--    Read by every serving instance every few seconds (src/services/serving-limits.ts).
CREATE TABLE traffic_blocks (
  block_id    text PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('cidr', 'viewer')),
  value       text NOT NULL,
  note        text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL,
  created_by  text NOT NULL,
  UNIQUE (kind, value)
);

-- 5. The daily traffic review (docs/invalid-traffic.md): one row per reviewed UTC day, and what it
--    gave back per campaign. The credit itself is an adjustment credit of the account tied to the day
--    (`credits.ivt_day`; one per account and day, so a rerun never credits twice).
CREATE TABLE traffic_reviews (
  day              date PRIMARY KEY,
  reviewed_at      timestamptz NOT NULL,
  sources_flagged  integer NOT NULL,
  viewers_flagged  integer NOT NULL,
  units_voided     integer NOT NULL,
  credited_micros  bigint NOT NULL
);
CREATE TABLE traffic_credits (
  day          date NOT NULL,
  user_id      text NOT NULL REFERENCES accounts(user_id),
  campaign_id  text NOT NULL,
  units        integer NOT NULL CHECK (units > 0),
  micros       bigint NOT NULL CHECK (micros >= 0),
  PRIMARY KEY (day, campaign_id)
);
CREATE INDEX traffic_credits_user ON traffic_credits (user_id, day);
ALTER TABLE credits ADD COLUMN ivt_day date;
CREATE UNIQUE INDEX credits_one_ivt_day ON credits (user_id, ivt_day) WHERE ivt_day IS NOT NULL;
