-- Exports: sanitized raw-ledger CSV export jobs and their stored artifacts
-- (table types: src/store/schema-exports.ts).
--
-- A job is claimed by exactly one worker (UPDATE … WHERE status = 'queued' …
-- FOR UPDATE SKIP LOCKED); started_at is the claim's lease token, so a worker
-- whose job was reclaimed (stuck in running > 10 min) can no longer write.
-- The artifact lives in the store, in ordered chunks of about 256 KiB, so any
-- instance can stream it with constant memory. Chunks are deleted when the job
-- expires (expiry job); the job row stays a while longer as a tombstone.

CREATE TABLE export_jobs (
  export_id       text PRIMARY KEY,
  user_id         text NOT NULL REFERENCES accounts(user_id),
  status          text NOT NULL CHECK (status IN ('queued', 'running', 'ready', 'failed')),
  -- Fixed when the job is queued (config.export_schema_version at that moment).
  schema_version  text NOT NULL CHECK (schema_version IN ('ledger-export-v1', 'ledger-export-v2')),
  -- Echo of the request: { start, end, campaign_ids?, creative_ids?, surfaces?, countries? }.
  filters         jsonb NOT NULL,
  window_start    timestamptz NOT NULL,
  window_end      timestamptz NOT NULL,
  row_count       integer CHECK (row_count >= 0),
  size_bytes      bigint CHECK (size_bytes >= 0),
  sha256          text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  error_code      text,
  created_at      timestamptz NOT NULL,
  started_at      timestamptz,
  finished_at     timestamptz,
  expires_at      timestamptz NOT NULL,
  CHECK (window_end > window_start),
  CHECK ((status = 'ready') = (row_count IS NOT NULL AND size_bytes IS NOT NULL AND sha256 IS NOT NULL)),
  CHECK ((status = 'failed') = (error_code IS NOT NULL)),
  CHECK (status = 'queued' OR started_at IS NOT NULL)
);
-- The worker's pick-up scan: only unfinished jobs are indexed.
CREATE INDEX export_jobs_pending ON export_jobs (created_at, export_id) WHERE status IN ('queued', 'running');
-- The expiry job's purge scan.
CREATE INDEX export_jobs_expiry ON export_jobs (expires_at);
CREATE INDEX export_jobs_account ON export_jobs (user_id, created_at);

CREATE TABLE export_chunks (
  export_id  text NOT NULL REFERENCES export_jobs(export_id) ON DELETE CASCADE,
  seq        integer NOT NULL CHECK (seq >= 0),
  data       bytea NOT NULL,
  PRIMARY KEY (export_id, seq)
);
