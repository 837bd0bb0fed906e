-- Bids carry up to six decimals of USD (micro-USD per thousand impressions): a CPM is no longer
-- a whole number of micros per impression. Each impression debits its place in the sequence
-- floor(n·c/1000) − floor((n−1)·c/1000) (src/domain/money.ts#impressionDebitMicros), so the
-- multiple-of-1,000 rule on cpm_micros goes; a bid stays a positive integer of micros.
ALTER TABLE campaigns DROP CONSTRAINT campaigns_cpm_micros_check;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_cpm_micros_positive CHECK (cpm_micros > 0);

-- GET /v1/exports pages an account's jobs newest first by (created_at, export_id): a keyset scan
-- of this index (read backwards) instead of a sort of every job of the account.
CREATE INDEX export_jobs_user_created ON export_jobs (user_id, created_at, export_id);
