-- The verifiable ledger (issue 39, docs/ledger-verification.md). When the rollups close a UTC day,
-- each account with ledger rows that day gets its day root: a SHA-256 chain over the day's rows in
-- export order, started from the account's previous root. The roots of a day are the leaves of that
-- day's public Merkle tree (RFC 6962), whose head is published at /transparency. Both are written
-- once and never updated: a later change to a closed day's rows shows against them.
CREATE TABLE IF NOT EXISTS ledger_days (
  user_id              text NOT NULL,
  day                  date NOT NULL,
  rows                 int8 NOT NULL CHECK (rows > 0),
  billable_impressions int8 NOT NULL,
  clicks               int8 NOT NULL,
  debit_micros         int8 NOT NULL,
  root                 text NOT NULL CHECK (root ~ '^[0-9a-f]{64}$'),
  previous_root        text NOT NULL CHECK (previous_root ~ '^[0-9a-f]{64}$'),
  leaf_index           int4 NOT NULL,
  sealed_at            timestamptz NOT NULL,
  PRIMARY KEY (user_id, day)
);
CREATE UNIQUE INDEX IF NOT EXISTS ledger_days_leaf ON ledger_days (day, leaf_index);

-- One head per closed day with ledger rows.
CREATE TABLE IF NOT EXISTS ledger_tree_heads (
  day       date PRIMARY KEY,
  tree_size int4 NOT NULL CHECK (tree_size >= 0),
  root_hash text NOT NULL CHECK (root_hash ~ '^[0-9a-f]{64}$'),
  sealed_at timestamptz NOT NULL
);

-- The last UTC day closed (null before the first close): every day up to it without a head had no rows.
CREATE TABLE IF NOT EXISTS ledger_close_state (
  id            int4 PRIMARY KEY CHECK (id = 1),
  closed_through date,
  updated_at    timestamptz
);
INSERT INTO ledger_close_state (id, closed_through, updated_at) VALUES (1, NULL, NULL) ON CONFLICT (id) DO NOTHING;

-- What each invoice took from each UTC day: the debits of billable rows before its period_end not
-- taken by an earlier invoice, fixed when the invoice is finalized. Invoices finalized before this
-- migration have no rows here.
CREATE TABLE IF NOT EXISTS invoice_days (
  invoice_id text NOT NULL REFERENCES invoices (invoice_id),
  user_id    text NOT NULL,
  day        date NOT NULL,
  micros     int8 NOT NULL CHECK (micros > 0),
  PRIMARY KEY (invoice_id, day)
);
CREATE INDEX IF NOT EXISTS invoice_days_user_day ON invoice_days (user_id, day);
