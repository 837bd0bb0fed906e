-- The ledger's primary key leads with the time (issue 53; docs/performance.md, "WAL per billable view").
--
-- The key was (event_id, occurred_at): event_id first for uniqueness, occurred_at only because a
-- partitioned table's unique index must hold its partition key. Beside it, `ledger_time` indexed
-- occurred_at alone for every read of a time range (a day's rows for the traffic review and traffic
-- quality, the rollups, the ledger days). Both were written on every ledger row (140 of the ~1,640
-- WAL bytes a fresh viewer's billable view wrote). The key is now (occurred_at, event_id): as unique,
-- and in the order every time-range read and every export page wants (occurred_at, then event_id), so
-- `ledger_time` goes. Each partition's key is rebuilt with it (a partition attached later gets the new
-- one, as before).
ALTER TABLE ledger_events DROP CONSTRAINT ledger_events_pkey;
ALTER TABLE ledger_events ADD CONSTRAINT ledger_events_pkey PRIMARY KEY (occurred_at, event_id);
DROP INDEX ledger_time;
