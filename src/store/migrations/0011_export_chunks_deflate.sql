-- Export artifacts are stored compressed by the service (raw DEFLATE, each
-- 256 KiB chunk of the CSV on its own, src/services/exports.ts): a CSV ledger
-- export deflates about 9:1 at level 1, and writing 27 MB of chunks was a
-- quarter of an export's time on the embedded store (docs/performance-reporting.md).
-- Compression runs on Node's thread pool, off the event loop. Artifacts made
-- before this migration stay `identity` (stored as they are served).
ALTER TABLE export_jobs
  ADD COLUMN artifact_encoding text NOT NULL DEFAULT 'identity' CHECK (artifact_encoding IN ('identity', 'deflate-raw'));
