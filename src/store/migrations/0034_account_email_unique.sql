-- One account per email address, compared lower-cased (issue 34;
-- docs/decisions/0387-accounts-that-already-share-an-address-keep-it-the-later.md). Before this, the operator API could make several
-- accounts with one address, and a self-sign-up could take the address of an operator-made account
-- whose owner had not set a password yet (the squat).
--
-- Accounts already sharing an address keep it: nothing is rewritten, so no owner loses the address
-- the service writes to. Of each group of accounts whose emails are equal lower-cased, the oldest
-- (created_at, then user_id) is the address's account; every later one is marked
-- `email_legacy_duplicate` and left out of the unique index. A squat is always the later account,
-- so the marked rows are the ones an operator reviews:
--   SELECT user_id, email, created_at FROM accounts WHERE email_legacy_duplicate;
-- A new account with any of these addresses still meets the unmarked one and is refused.
-- Every statement is idempotent: run again, the file marks the same rows and changes nothing else.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS email_legacy_duplicate boolean NOT NULL DEFAULT false;

WITH ranked AS (
  SELECT user_id, row_number() OVER (PARTITION BY lower(email) ORDER BY created_at, user_id) > 1 AS later
  FROM accounts
)
UPDATE accounts
SET email_legacy_duplicate = ranked.later
FROM ranked
WHERE ranked.user_id = accounts.user_id AND accounts.email_legacy_duplicate IS DISTINCT FROM ranked.later;

CREATE UNIQUE INDEX IF NOT EXISTS accounts_email_lower ON accounts (lower(email)) WHERE NOT email_legacy_duplicate;
