-- The serving batch moves block statuses forward (queued -> serving ->
-- exhausted; src/store/ledger.ts, writeBatch). It looks only at a campaign's
-- blocks that are not exhausted and lie at or below its current block, so it
-- reads one or two index entries per campaign instead of every block of the
-- campaign on every batch (up to max_blocks rows each; docs/performance.md).
CREATE INDEX blocks_open ON blocks (campaign_id, block_index) WHERE status <> 'exhausted';
