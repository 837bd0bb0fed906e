-- Webhooks (issue 25, part 4; docs/webhooks.md, docs/decisions/0324-endpoints-need-authentication-not-write-access.md
-- to 0334).
--
-- An advertiser's endpoints. The signing secret is kept only sealed (AES-256-GCM under the
-- key-sealing key, bound to the endpoint id: src/services/key-sealing.ts), never in plain text.
CREATE TABLE webhook_endpoints (
  endpoint_id   text PRIMARY KEY,
  user_id       text NOT NULL REFERENCES accounts(user_id),
  url           text NOT NULL,
  events        text[] NOT NULL,
  secret_sealed bytea NOT NULL,
  created_at    timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at);

-- The durable outbox: one message per (event, endpoint subscribed when the event happened),
-- written in the transaction of the change that caused the event. `message_id` (msg_…) is the
-- `webhook-id` of every attempt; `body` is the exact JSON sent, fixed at the event. `event_key`
-- names the event (e.g. `campaign.exhausted:cmp_…`), so an event written twice by a retried
-- transaction still makes one message per endpoint.
--
-- Due messages are `pending` with `next_attempt_at` (service clock) reached. A sender claims one by
-- setting `claimed_until` (real time, the store's now(): a moved manual clock must not end a claim
-- in flight) and `claim_token`; a crashed sender's claim lapses and the message is sent again.
CREATE TABLE webhook_messages (
  message_id      text PRIMARY KEY,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints(endpoint_id) ON DELETE CASCADE,
  user_id         text NOT NULL,
  event_type      text NOT NULL,
  event_key       text NOT NULL,
  body            text NOT NULL,
  created_at      timestamptz NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  retry_until     timestamptz NOT NULL,
  claimed_until   timestamptz NULL,
  claim_token     text NULL,
  delivered_at    timestamptz NULL,
  CONSTRAINT webhook_messages_event_once UNIQUE (endpoint_id, event_key)
);
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, created_at DESC);

-- Every attempt: when (service clock), how long it took (real time), the status code or the error.
CREATE TABLE webhook_attempts (
  attempt_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id   text NOT NULL REFERENCES webhook_messages(message_id) ON DELETE CASCADE,
  endpoint_id  text NOT NULL,
  attempted_at timestamptz NOT NULL,
  duration_ms  integer NOT NULL,
  status_code  integer NULL,
  error        text NULL,
  succeeded    boolean NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, attempt_id DESC);
CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id);
