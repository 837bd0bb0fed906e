-- Invalid traffic (issue 32; operations.md section 2, "Invalid traffic"; docs/invalid-traffic.md).
--
-- 1. The source of a measured view or click: the IPv4 address or IPv6 /64 that asked for its
--    decision (src/domain/traffic-source.ts), sealed in the impression id. Operators only: never
--    exported, never shown to an advertiser. Offers and rows written before this migration have none.
ALTER TABLE ledger_events ADD COLUMN source text;

-- 2. One more reason a recorded view (or a click campaign's click) is not billable: invalid_traffic,
--    a source past its bounds or on the operators' block list. NOT VALID: the new check only admits
--    more than the old one, so existing rows need no scan.
ALTER TABLE ledger_events DROP CONSTRAINT ledger_view_reason_known;
ALTER TABLE ledger_events
  ADD CONSTRAINT ledger_view_reason_known CHECK (
    (event_type <> 'view' OR coalesce(reason IN ('short_dwell', 'too_fast', 'viewer_frequency', 'block_full', 'invalid_traffic',
                                                 'dwell_exceeds_elapsed', 'inventory_exhausted', 'campaign_cancelled'), false))
    AND (event_type <> 'repeat_view' OR reason = 'repeat')
    AND (event_type <> 'expired_view' OR reason = 'expired')
  ) NOT VALID;

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
--    ... their number (at most ivt_max_viewers_per_source_per_day when counted) ...
CREATE TABLE source_day_counts (
  source   text NOT NULL,
  day      date NOT NULL,
  viewers  integer NOT NULL CHECK (viewers >= 0),
  PRIMARY KEY (source, day)
);
--    ... and the billable units of a source in a UTC hour (at most ivt_max_billable_per_source_per_hour).
CREATE TABLE source_hour_counts (
  source    text NOT NULL,
  hour      timestamptz NOT NULL,
  billable  integer NOT NULL CHECK (billable >= 0),
  PRIMARY KEY (source, hour)
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
