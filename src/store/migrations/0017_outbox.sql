-- Every email the service sends is kept here first (docs/decisions/0170-outbox-first-email.md); operators read it
-- through GET /admin/v1/outbox?to=<email>, newest first. sent_at is the service clock's instant;
-- delivery is 'stored' (no SMTP_URL), 'sent' or 'failed' (error holds why).
CREATE TABLE outbox (
  message_id text PRIMARY KEY,
  to_address text NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  sent_at timestamptz NOT NULL,
  delivery text NOT NULL CHECK (delivery IN ('stored', 'sent', 'failed')),
  error text NULL
);

CREATE INDEX outbox_to_sent ON outbox (to_address, sent_at DESC);
