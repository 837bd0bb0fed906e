-- Every non-billable view explained (issue 25, part 3; docs/decisions/
-- 0316 to 0323, from 0316-one-vocabulary-non-billable-reasons.md).
--
-- 1. Two more ledger event types, both never billable:
--      repeat_view   the view of an impression already measured, reported again
--      expired_view  a view reported after the offer's hour (the request answers 410)
--    At most one of each per impression (ledger_one_report): a client replaying
--    one impression id grows the ledger by at most two rows. Their `reason` is
--    `repeat` / `expired`.
-- 2. `view` rows are written with the reasons of the one vocabulary
--    (short_dwell, too_fast, viewer_frequency, block_full). Rows written before
--    keep their strings (the ledger is append-only) and are read mapped:
--    dwell_exceeds_elapsed -> too_fast, inventory_exhausted and
--    campaign_cancelled -> block_full (src/domain/delivery.ts, LEGACY_REASONS).
-- 3. The rollups gain one count per reason, and the rows of closed days are
--    recomputed from the ledger here, so closed days reconcile with the ledger.
--
-- The constraints and the index check every existing row once (one scan of the
-- ledger each, under this migration's lock), as 0010 did.

ALTER TABLE ledger_events DROP CONSTRAINT ledger_events_event_type_check;
ALTER TABLE ledger_events
  ADD CONSTRAINT ledger_event_type_known
    CHECK (event_type IN ('offer', 'impression', 'view', 'click', 'repeat_view', 'expired_view')),
  -- Every recorded view that is not billable names one reason, so billable + the per-reason counts
  -- add up to the recorded views exactly.
  ADD CONSTRAINT ledger_view_reason_known CHECK (
    (event_type <> 'view' OR coalesce(reason IN ('short_dwell', 'too_fast', 'viewer_frequency', 'block_full',
                                                 'dwell_exceeds_elapsed', 'inventory_exhausted', 'campaign_cancelled'), false))
    AND (event_type <> 'repeat_view' OR reason = 'repeat')
    AND (event_type <> 'expired_view' OR reason = 'expired')
  );
CREATE UNIQUE INDEX ledger_one_report ON ledger_events (impression_id, event_type) WHERE event_type IN ('repeat_view', 'expired_view');

-- nb_<reason>: recorded views that were not billable, per reason (the /v1/stats `non_billable` object).
ALTER TABLE daily_rollups
  ADD COLUMN nb_short_dwell bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_repeat bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_too_fast bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_viewer_frequency bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_expired bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_block_full bigint NOT NULL DEFAULT 0;
ALTER TABLE hourly_rollups
  ADD COLUMN nb_short_dwell bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_repeat bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_too_fast bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_viewer_frequency bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_expired bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_block_full bigint NOT NULL DEFAULT 0;
ALTER TABLE daily_account_rollups
  ADD COLUMN nb_short_dwell bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_repeat bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_too_fast bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_viewer_frequency bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_expired bigint NOT NULL DEFAULT 0,
  ADD COLUMN nb_block_full bigint NOT NULL DEFAULT 0;

-- Closed days: their non-billable views, from the ledger. Before this migration only `view` rows
-- carried a reason (repeats and late views were recorded nowhere), so their counts stay 0.
-- This copy of the mapping is frozen with the migration (the code's lives in src/store/ledger-sums.ts).
UPDATE daily_rollups r SET
  nb_short_dwell = x.short_dwell, nb_too_fast = x.too_fast, nb_viewer_frequency = x.viewer_frequency, nb_block_full = x.block_full
FROM (
  SELECT (e.occurred_at AT TIME ZONE 'UTC')::date AS day, e.user_id, e.campaign_id, e.creative_id, e.surface,
    count(*) FILTER (WHERE e.reason = 'short_dwell') AS short_dwell,
    count(*) FILTER (WHERE e.reason IN ('too_fast', 'dwell_exceeds_elapsed')) AS too_fast,
    count(*) FILTER (WHERE e.reason = 'viewer_frequency') AS viewer_frequency,
    count(*) FILTER (WHERE e.reason IN ('block_full', 'inventory_exhausted', 'campaign_cancelled')) AS block_full
  FROM ledger_events e, rollup_state s
  WHERE s.id = 1 AND e.event_type = 'view' AND e.occurred_at < ((s.rolled_through + 1)::timestamp AT TIME ZONE 'UTC')
  GROUP BY 1, 2, 3, 4, 5
) x
WHERE r.day = x.day AND r.user_id = x.user_id AND r.campaign_id = x.campaign_id AND r.creative_id = x.creative_id AND r.surface = x.surface;

UPDATE hourly_rollups r SET
  nb_short_dwell = x.short_dwell, nb_too_fast = x.too_fast, nb_viewer_frequency = x.viewer_frequency, nb_block_full = x.block_full
FROM (
  SELECT date_trunc('hour', e.occurred_at, 'UTC') AS hour, e.user_id, e.campaign_id, e.creative_id, e.surface,
    count(*) FILTER (WHERE e.reason = 'short_dwell') AS short_dwell,
    count(*) FILTER (WHERE e.reason IN ('too_fast', 'dwell_exceeds_elapsed')) AS too_fast,
    count(*) FILTER (WHERE e.reason = 'viewer_frequency') AS viewer_frequency,
    count(*) FILTER (WHERE e.reason IN ('block_full', 'inventory_exhausted', 'campaign_cancelled')) AS block_full
  FROM ledger_events e, rollup_state s
  WHERE s.id = 1 AND e.event_type = 'view' AND e.occurred_at < ((s.rolled_through + 1)::timestamp AT TIME ZONE 'UTC')
  GROUP BY 1, 2, 3, 4, 5
) x
WHERE r.hour = x.hour AND r.user_id = x.user_id AND r.campaign_id = x.campaign_id AND r.creative_id = x.creative_id AND r.surface = x.surface;

UPDATE daily_account_rollups a SET
  nb_short_dwell = x.short_dwell, nb_too_fast = x.too_fast, nb_viewer_frequency = x.viewer_frequency, nb_block_full = x.block_full
FROM (
  SELECT r.user_id, r.day, sum(r.nb_short_dwell) AS short_dwell, sum(r.nb_too_fast) AS too_fast,
    sum(r.nb_viewer_frequency) AS viewer_frequency, sum(r.nb_block_full) AS block_full
  FROM daily_rollups r GROUP BY r.user_id, r.day
) x
WHERE a.user_id = x.user_id AND a.day = x.day;

-- Export jobs may be queued with the new schema (src/domain/export-csv.ts).
ALTER TABLE export_jobs DROP CONSTRAINT export_jobs_schema_version_check;
ALTER TABLE export_jobs ADD CONSTRAINT export_jobs_schema_version_known
  CHECK (schema_version IN ('ledger-export-v1', 'ledger-export-v2', 'ledger-export-v3'));
