-- The ledger's partial index on occurred_at of rows with a source (0029, rebuilt in 0031) is dropped
-- (issue 53; docs/performance.md, "WAL per billable view, by relation"): it repeated `ledger_time`
-- for nearly every row (billable views carry a source) and cost 65 WAL bytes a billable view. The reads
-- it served, a UTC day's sourced rows (src/store/traffic-quality.ts, src/store/traffic-review.ts), read
-- the same range of `ledger_time` and skip the few rows without a source.
DROP INDEX IF EXISTS ledger_sourced_time;
