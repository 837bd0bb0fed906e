-- Attested views (issue 48; operations.md section 2, "Attested views"; docs/attestation.md).
--
-- 1. The issuer's keys (RFC 9578, token type 0x0002, RSA 2048), one per key period of
--    PRIVACY_PASS_KEY_DAYS, created by the first instance that needs it (ON CONFLICT on the period).
--    A key issues during its period and redeems until one period after it. The private key is
--    sealed (AES-256-GCM under the key-sealing ring, like API keys' copies); the public key is
--    published (the issuer directory, the transparency log) and never leaves.
CREATE TABLE IF NOT EXISTS privacy_pass_keys (
  period            integer PRIMARY KEY,
  token_key_id      bytea NOT NULL UNIQUE CHECK (length(token_key_id) = 32),
  token_key         bytea NOT NULL,
  private_key_sealed bytea NOT NULL,
  not_before        timestamptz NOT NULL,
  issue_until       timestamptz NOT NULL,
  redeem_until      timestamptz NOT NULL,
  CHECK (not_before < issue_until AND issue_until <= redeem_until)
);

-- 2. Tokens issued per attester subject and UTC day (at most attest_tokens_per_subject_per_day).
--    The subject is kept only as a keyed hash (HMAC-SHA-256 under a stored secret) and the row holds
--    a count: nothing here links an account to a token.
CREATE TABLE IF NOT EXISTS attester_subject_days (
  subject_hash  bytea NOT NULL,
  day           date NOT NULL,
  tokens        integer NOT NULL CHECK (tokens > 0),
  PRIMARY KEY (subject_hash, day)
);

-- 3. Tokens spent: each token's nonce bills at most once, claimed by the statement that writes its
--    billable row (src/store/ledger.ts#writeBatch). Kept until its key stops redeeming.
CREATE TABLE IF NOT EXISTS spent_tokens (
  nonce         bytea PRIMARY KEY,
  token_key_id  bytea NOT NULL,
  spent_at      timestamptz NOT NULL
);

-- 4. The token of an attested billable impression (354 bytes), for ledger-export-v4 and the
--    advertiser's check; NULL on every other row. On the partitioned parent: every partition gets it.
ALTER TABLE ledger_events ADD COLUMN IF NOT EXISTS attestation_token bytea;

-- 5. Two more reasons a measured view is not billable: unattested (attestation `required`, no
--    token) and invalid_token (a spent, unknown-key, expired-key or malformed token).
ALTER TABLE ledger_events DROP CONSTRAINT ledger_view_reason_known;
ALTER TABLE ledger_events ADD CONSTRAINT ledger_view_reason_known CHECK (
  (event_type <> 'view' OR coalesce(reason IN ('short_dwell', 'too_fast', 'viewer_frequency', 'block_full', 'invalid_traffic',
                                               'unattested', 'invalid_token',
                                               'dwell_exceeds_elapsed', 'inventory_exhausted', 'campaign_cancelled'), false))
  AND (event_type <> 'repeat_view' OR reason = 'repeat')
  AND (event_type <> 'expired_view' OR reason = 'expired')
  AND (event_type NOT IN ('voided_impression', 'voided_click') OR reason = 'invalid_traffic')
);

ALTER TABLE daily_rollups ADD COLUMN IF NOT EXISTS nb_unattested bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS nb_invalid_token bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS attested_billable_impressions bigint NOT NULL DEFAULT 0;
ALTER TABLE hourly_rollups ADD COLUMN IF NOT EXISTS nb_unattested bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS nb_invalid_token bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS attested_billable_impressions bigint NOT NULL DEFAULT 0;
ALTER TABLE daily_account_rollups ADD COLUMN IF NOT EXISTS nb_unattested bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS nb_invalid_token bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS attested_billable_impressions bigint NOT NULL DEFAULT 0;

-- 6. Export jobs may be queued as ledger-export-v4 (the attestation_token column; src/domain/export-csv.ts).
ALTER TABLE export_jobs DROP CONSTRAINT export_jobs_schema_version_known;
ALTER TABLE export_jobs ADD CONSTRAINT export_jobs_schema_version_known
  CHECK (schema_version IN ('ledger-export-v1', 'ledger-export-v2', 'ledger-export-v3', 'ledger-export-v4'));
