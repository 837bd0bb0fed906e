-- Exact unique viewers without scanning viewer sets at request time
-- (docs/performance-reporting.md, suggestion 1). For each account and day,
-- the day's distinct viewers are counted by their previous active day: over
-- any day-aligned window [from, to), each viewer is counted once, on its
-- first active day in the window, as sum(viewers) WHERE prev_day < from.

CREATE TABLE account_viewer_days (
  user_id     text NOT NULL,
  viewer_key  text NOT NULL,
  day         date NOT NULL,
  PRIMARY KEY (user_id, viewer_key, day)
);
CREATE INDEX account_viewer_days_day ON account_viewer_days (day);

CREATE TABLE daily_viewer_returns (
  user_id   text NOT NULL,
  day       date NOT NULL,
  prev_day  date,
  viewers   bigint NOT NULL
);
CREATE INDEX daily_viewer_returns_idx ON daily_viewer_returns (user_id, day);

-- A day's rows are replaced on every rollup run: find them by day.
CREATE INDEX daily_rollups_day ON daily_rollups (day);
CREATE INDEX daily_viewers_day ON daily_viewers (day);

-- Days rolled before this table existed.
INSERT INTO account_viewer_days (user_id, viewer_key, day)
  SELECT DISTINCT user_id, viewer_key, day FROM daily_viewers;
INSERT INTO daily_viewer_returns (user_id, day, prev_day, viewers)
  SELECT a.user_id, a.day,
    (SELECT max(p.day) FROM account_viewer_days p WHERE p.user_id = a.user_id AND p.viewer_key = a.viewer_key AND p.day < a.day),
    count(*)
  FROM account_viewer_days a GROUP BY 1, 2, 3;
