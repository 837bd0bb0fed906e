-- The ledger row keeps the 16-byte key of its impression instead of the id (issue 53; amends
-- docs/decisions/0580-a-claim-is-keyed-by-16-bytes-of-the-impressions-sha-256.md).
--
-- Every ledger row carried the full impression id, a sealed token of about 200 characters, in its
-- heap tuple: the largest column of the row, and so of the ledger's WAL a billable view writes. Nothing
-- reads the id back from the ledger: it is in no export and in no verification chain
-- (docs/ledger-verification.md); it only joins a voided row to the row it voids
-- (src/store/traffic-review.ts, traffic-quality.ts) and tells a batch which views were written
-- (src/store/ledger.ts#writeBatch). For that, `ledger_claim_key(impression_id)` (migration 0038: the
-- first 16 bytes of SHA-256 over the id) serves as well, and it is the key the claims hold already,
-- so every statement that writes a row derives the key once for both.
--
-- Existing rows get their key from the same function, so a row written before this migration joins
-- its void and its claim exactly as a new one does. The key is filled by rewriting the table: SET DATA
-- TYPE with USING, in the same ALTER that drops the id (USING reads each row as it was, id included).
-- An UPDATE would leave a dead copy of every row (the embedded store has no autovacuum) and keep the
-- id's bytes in the live one; the rewrite writes each row once, without them, and rebuilds the indexes.
-- It holds the ledger's ACCESS EXCLUSIVE lock until the migration commits, as any such ALTER does.
--
-- ALTER TABLE on the partitioned ledger applies to every partition, the month partitions and the
-- DEFAULT one; a partition that ledger_ensure_partition creates later copies the columns and CHECKs of
-- ledger_events (CREATE TABLE ... LIKE), and its copy of the DEFAULT partition's rows (by position)
-- sees the same columns in the same order. No index of the ledger includes impression_id (0031
-- replaced its unique ones by ledger_claims), so none moves.

ALTER TABLE ledger_events ADD COLUMN impression_key bytea;
ALTER TABLE ledger_events
  ALTER COLUMN impression_key SET DATA TYPE bytea USING ledger_claim_key(impression_id),
  ALTER COLUMN impression_key SET NOT NULL,
  ADD CONSTRAINT ledger_impression_key_length CHECK (length(impression_key) = 16),
  DROP COLUMN impression_id;
