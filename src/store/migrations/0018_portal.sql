-- Sign-in for the portal (operations.md section 5; docs/decisions/0179-logins-portal-sessions.md
-- to 0185).
-- A login is an email and an argon2id password hash for one account. Emails are compared
-- lower-cased and trimmed, so one address signs in to one account; the operator API may still
-- create several accounts with the same email, but only one of them can hold the login.
CREATE TABLE logins (
  email_key text PRIMARY KEY,
  user_id text NOT NULL UNIQUE REFERENCES accounts (user_id),
  password_hash text NOT NULL,
  password_changed_at timestamptz NOT NULL
);

-- Browser sessions, for advertisers (subject_kind 'advertiser', subject_id a user id) and, later,
-- operators. Only the SHA-256 of the cookie's random token is stored. A session ends at
-- expires_at (absolute), after IDLE minutes without use (idle_expires_at), at sign-out, and when
-- the password changes (every session of the subject is deleted).
CREATE TABLE sessions (
  token_hash bytea PRIMARY KEY,
  subject_kind text NOT NULL CHECK (subject_kind IN ('advertiser', 'operator')),
  subject_id text NOT NULL,
  created_at timestamptz NOT NULL,
  idle_expires_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_subject ON sessions (subject_kind, subject_id);

-- One-use links sent by email: 'reset' (forgot password) and 'set' (an account an operator made).
CREATE TABLE password_tokens (
  token_hash bytea PRIMARY KEY,
  user_id text NOT NULL REFERENCES accounts (user_id),
  purpose text NOT NULL CHECK (purpose IN ('reset', 'set')),
  email text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz NULL
);
CREATE INDEX password_tokens_user ON password_tokens (user_id);

-- The version of the API terms the advertiser accepted (src/domain/terms.ts).
ALTER TABLE accounts ADD COLUMN terms_version text NULL;
