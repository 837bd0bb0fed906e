-- Billing: invoices finalized per period, adjustment credits, and the
-- append-only billing event log.

CREATE TABLE invoices (
  invoice_id             text PRIMARY KEY,
  user_id                text NOT NULL REFERENCES accounts(user_id),
  billing_mode           text NOT NULL,
  -- The scheduled run this invoice belongs to; one invoice per account and period.
  period_start           timestamptz NOT NULL,
  period_end             timestamptz NOT NULL,
  -- Delivered value newly invoiced (micros) and its cents: rounded on the
  -- cumulative total, so the sum of invoices never drifts from the ledger.
  delivered_micros       bigint NOT NULL CHECK (delivered_micros >= 0),
  amount_cents           bigint NOT NULL CHECK (amount_cents >= 0),
  credits_applied_cents  bigint NOT NULL CHECK (credits_applied_cents >= 0 AND credits_applied_cents <= amount_cents),
  total_cents            bigint NOT NULL CHECK (total_cents = amount_cents - credits_applied_cents),
  status                 text NOT NULL CHECK (status IN ('open', 'paid', 'payment_failed', 'void')),
  finalized_at           timestamptz NOT NULL,
  due_at                 timestamptz NOT NULL,
  paid_at                timestamptz,
  charge_attempts        integer NOT NULL DEFAULT 0,
  UNIQUE (user_id, period_end)
);
CREATE INDEX invoices_status_idx ON invoices (status, billing_mode);

CREATE TABLE credits (
  credit_id     text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES accounts(user_id),
  amount_cents  bigint NOT NULL CHECK (amount_cents > 0),
  memo          text NOT NULL,
  posted_at     timestamptz NOT NULL
);
CREATE INDEX credits_user_idx ON credits (user_id);

-- Append-only: invoice_finalized, charge_attempted, charge_succeeded,
-- charge_failed, credit_posted, credit_applied, invoice_paid.
CREATE TABLE billing_events (
  event_id      bigserial PRIMARY KEY,
  user_id       text NOT NULL REFERENCES accounts(user_id),
  occurred_at   timestamptz NOT NULL,
  event_type    text NOT NULL,
  invoice_id    text REFERENCES invoices(invoice_id),
  credit_id     text REFERENCES credits(credit_id),
  amount_cents  bigint NOT NULL DEFAULT 0,
  detail        jsonb
);
CREATE INDEX billing_events_user_idx ON billing_events (user_id, event_id);

-- An account whose payment failed stops serving until billing recovers.
CREATE TRIGGER accounts_serving_epoch
  AFTER UPDATE OF collection_status ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION bump_serving_epoch();
