-- Hourly rollups of closed days (docs/performance-reporting.md, suggestion 3),
-- and unfiltered per-day account totals.
-- Written with the daily rollups, in the same transaction of rollUpDay (so
-- the one watermark, rollup_state.rolled_through, covers both): a day's rows
-- are replaced on every run. /stats at granularity=hour reads the whole
-- closed days of an unfiltered window from here and the rest from the ledger;
-- it still answers served_from = ledger (docs/reporting.md (decision 0156)).

CREATE TABLE hourly_rollups (
  hour                  timestamptz NOT NULL,
  user_id               text NOT NULL,
  campaign_id           text NOT NULL,
  creative_id           text NOT NULL,
  surface               text NOT NULL,
  events                bigint NOT NULL,
  billable_impressions  bigint NOT NULL,
  viewable_ticks        bigint NOT NULL,
  clicks                bigint NOT NULL,
  spend_micros          bigint NOT NULL,
  PRIMARY KEY (user_id, hour, campaign_id, creative_id, surface)
);
CREATE INDEX hourly_rollups_hour ON hourly_rollups (hour);

-- Distinct viewers of the account in each UTC hour (unfiltered: a viewer seen
-- by two campaigns is one viewer, so per-campaign counts could not be added).
CREATE TABLE hourly_viewers (
  user_id  text NOT NULL,
  hour     timestamptz NOT NULL,
  viewers  bigint NOT NULL,
  PRIMARY KEY (user_id, hour)
);
CREATE INDEX hourly_viewers_hour ON hourly_viewers (hour);

-- Days rolled before these tables existed (every day up to the watermark).
INSERT INTO hourly_rollups (hour, user_id, campaign_id, creative_id, surface, events, billable_impressions, viewable_ticks, clicks, spend_micros)
  SELECT date_trunc('hour', e.occurred_at, 'UTC'), e.user_id, e.campaign_id, e.creative_id, e.surface,
    count(*),
    count(*) FILTER (WHERE e.event_type = 'impression'),
    coalesce(sum(least(e.dwell_ms, 10000) / 1000) FILTER (WHERE e.event_type IN ('impression', 'view')), 0),
    count(*) FILTER (WHERE e.event_type = 'click'),
    coalesce(sum(e.debit_micros), 0)
  FROM ledger_events e, rollup_state s
  WHERE s.id = 1 AND e.occurred_at < ((s.rolled_through + 1)::timestamp AT TIME ZONE 'UTC')
  GROUP BY 1, 2, 3, 4, 5;
INSERT INTO hourly_viewers (user_id, hour, viewers)
  SELECT e.user_id, date_trunc('hour', e.occurred_at, 'UTC'), count(DISTINCT e.viewer_key)
  FROM ledger_events e, rollup_state s
  WHERE s.id = 1 AND e.occurred_at < ((s.rolled_through + 1)::timestamp AT TIME ZONE 'UTC')
  GROUP BY 1, 2;

-- Unfiltered account totals per closed day, with the day's exact distinct
-- viewers: a day-granularity account window reads one row per day instead of
-- summing every (campaign, creative, surface) row and viewer return of it.
-- Written by rollUpDay with the other rows of the day.
CREATE TABLE daily_account_rollups (
  user_id               text NOT NULL,
  day                   date NOT NULL,
  events                bigint NOT NULL,
  billable_impressions  bigint NOT NULL,
  viewable_ticks        bigint NOT NULL,
  clicks                bigint NOT NULL,
  spend_micros          bigint NOT NULL,
  viewers               bigint NOT NULL,
  PRIMARY KEY (user_id, day)
);
CREATE INDEX daily_account_rollups_day ON daily_account_rollups (day);
INSERT INTO daily_account_rollups (user_id, day, events, billable_impressions, viewable_ticks, clicks, spend_micros, viewers)
  SELECT r.user_id, r.day, sum(r.events), sum(r.billable_impressions), sum(r.viewable_ticks), sum(r.clicks), sum(r.spend_micros),
    (SELECT count(*) FROM account_viewer_days a WHERE a.user_id = r.user_id AND a.day = r.day)
  FROM daily_rollups r GROUP BY r.user_id, r.day;
