-- A source's first viewer of the day lives in its counts row (issue 53; docs/invalid-traffic.md,
-- "Where the counts live"; docs/performance.md, "WAL per billable view").
--
-- Until now every viewer that earned a billable unit from a source on a UTC day was a row of
-- `source_day_viewers` (with its primary-key entry), and the day's `source_counts` row counted them.
-- Most sources (a home address, an office's /64) have one viewer a day, so for most billable views of
-- a new viewer that row was pure WAL: 280 of the ~1,860 bytes a fresh viewer's view wrote. Now the
-- counts row holds the first viewer of its day (`first_viewer`), and `source_day_viewers` lists only
-- the source's other viewers that day. A viewer is among a source's viewers of a day exactly when it
-- is the counts row's `first_viewer` or has a `source_day_viewers` row: the same set as before,
-- stored in fewer rows.
--
-- Rows written before this migration have `first_viewer` NULL: their viewers are all listed already.
ALTER TABLE source_counts ADD COLUMN first_viewer text;

-- What the store holds about a batch's (source, viewer) pairs on a UTC day, for the batch statement
-- (src/store/ledger.ts#writeBatch) and the judging read (src/store/ledger-state.ts#readSourceUse): per
-- pair (with the batch's units of it, passed through), whether the source has its counts row that day (`counted`, with its first viewer, viewers and
-- current hour's units) and whether the viewer is listed. One index probe per pair, always: the
-- function plans its query with sequential scans, hash and merge joins off. A generic plan of a
-- prepared statement is kept until the next ANALYZE, and one made while these tables were nearly
-- empty (a new database) would scan them on every batch as they grow (measured: 1.3 ms a view
-- instead of 60 µs). plpgsql keeps the function's plan for the session.
CREATE FUNCTION source_day_state(p_sources text[], p_viewers text[], p_units integer[], p_day date)
  RETURNS TABLE (source text, viewer_key text, units integer, counted boolean, first_viewer text, viewers integer,
                 hour timestamptz, hour_billable integer, listed boolean)
  LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
  SET enable_hashjoin = off
  SET enable_mergejoin = off
  AS $$
BEGIN
  RETURN QUERY
    SELECT k.s, k.v, k.u, c.source IS NOT NULL, c.first_viewer, c.viewers, c.hour, c.hour_billable,
           EXISTS (SELECT 1 FROM source_day_viewers l WHERE l.source = k.s AND l.day = p_day AND l.viewer_key = k.v)
    FROM unnest(p_sources, p_viewers, p_units) AS k(s, v, u)
    -- OFFSET 0 keeps the lookup a subquery run for each pair with its source bound, never a join
    -- the planner could turn into a scan of the day's rows.
    LEFT JOIN LATERAL (SELECT * FROM source_counts c WHERE c.source = k.s AND c.day = p_day OFFSET 0) c ON true;
END
$$;
