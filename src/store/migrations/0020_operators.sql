-- The operator console (operations.md section 5; docs/operator-console.md (decision 0209)
-- to 0220).
-- Operators sign in with their own email and argon2id password; the first one is made at
-- /ops/setup with ADMIN_TOKEN. Their browser sessions live in `sessions` (subject_kind 'operator').
CREATE TABLE operators (
  operator_id text PRIMARY KEY,
  email text NOT NULL,
  email_key text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  password_changed_at timestamptz NOT NULL
);

-- Who did what to which target, and when, for every operator action through the console or the
-- token API. before/after are secret-free snapshots of the target (src/services/audit-targets.ts):
-- never an API key, password, card number (only its last four digits) or token. `at` is the
-- service clock's instant; entry_id orders entries that share an instant.
CREATE TABLE audit_log (
  entry_id bigserial PRIMARY KEY,
  at timestamptz NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('operator', 'token')),
  actor_id text NULL,
  action text NOT NULL,
  target_kind text NOT NULL,
  target_id text NULL,
  before jsonb NULL,
  after jsonb NULL,
  source_address text NOT NULL,
  CHECK ((actor_kind = 'operator') = (actor_id IS NOT NULL))
);
CREATE INDEX audit_log_action ON audit_log (action, entry_id);
CREATE INDEX audit_log_target ON audit_log (target_id, entry_id);

-- The console's lists: the moderation queue (oldest first by the time a creative entered its
-- status), every account's invoices (newest first) and accounts (newest first).
CREATE INDEX creatives_moderation_queue ON creatives (moderation_status, updated_at, campaign_id);
CREATE INDEX invoices_finalized ON invoices (finalized_at, invoice_id);
CREATE INDEX accounts_created ON accounts (created_at, user_id);
