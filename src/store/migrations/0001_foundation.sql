-- Foundation: accounts and their keys, live order config, campaigns with their
-- creative and blocks, idempotent create records, previews, component states.
-- Every timestamp is written by the service clock; no column defaults to now().

CREATE TABLE accounts (
  user_id                 text PRIMARY KEY,
  email                   text NOT NULL,
  billing_email           text,
  created_at              timestamptz NOT NULL,
  -- API key: only a SHA-256 digest is kept; key_prefix is the displayable head.
  api_key_hash            bytea NOT NULL,
  key_prefix              text NOT NULL,
  key_created_at          timestamptz NOT NULL,
  key_last_used_at        timestamptz,
  write_approved          boolean NOT NULL DEFAULT false,
  terms_accepted          boolean NOT NULL DEFAULT false,
  terms_accepted_at       timestamptz,
  writes_disabled         boolean NOT NULL DEFAULT false,
  -- Billing profile at the payment processor (no card numbers are stored).
  collection_status       text NOT NULL DEFAULT 'not_enrolled',
  requested_billing_mode  text,
  effective_billing_mode  text NOT NULL DEFAULT 'disabled',
  credit_limit_cents      bigint NOT NULL DEFAULT 0,
  processor_customer_id   text,
  payment_method_id       text,
  card_brand              text,
  card_last4              text,
  billing_country         text,
  billing_enrolled_at     timestamptz
);

CREATE TABLE settings (
  key    text PRIMARY KEY,
  value  jsonb NOT NULL
);

CREATE TABLE component_states (
  component   text PRIMARY KEY,
  state       text NOT NULL,
  updated_at  timestamptz NOT NULL
);

CREATE TABLE campaigns (
  campaign_id            text PRIMARY KEY,
  -- Creation order; breaks auction ties between equal bids even when
  -- created_at is equal.
  seq                    bigserial UNIQUE,
  user_id                text NOT NULL REFERENCES accounts(user_id),
  creation_channel       text NOT NULL,
  name                   text NOT NULL,
  status                 text NOT NULL,
  kind                   text NOT NULL,
  cpm_micros             bigint NOT NULL CHECK (cpm_micros > 0 AND cpm_micros % 1000 = 0),
  impressions            integer NOT NULL CHECK (impressions > 0),
  block_count            integer NOT NULL CHECK (block_count > 0),
  target_surface         text NOT NULL,
  target_countries       text[],
  pace_minutes           integer,
  optin_leaderboard      boolean NOT NULL,
  start_paused           boolean NOT NULL,
  amount_cents           bigint NOT NULL,
  lifetime_spent_micros  bigint NOT NULL DEFAULT 0,
  report_uuid            uuid,
  created_at             timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL,
  -- Pacing counts time from first activation with paused time excluded.
  activated_at           timestamptz,
  paused_at              timestamptz,
  paused_ms              bigint NOT NULL DEFAULT 0,
  cancelled_at           timestamptz
);
CREATE INDEX campaigns_user_idx ON campaigns (user_id, seq);

CREATE TABLE creatives (
  creative_id        text PRIMARY KEY,
  campaign_id        text NOT NULL UNIQUE REFERENCES campaigns(campaign_id),
  user_id            text NOT NULL REFERENCES accounts(user_id),
  ad_line            text NOT NULL,
  destination_url    text NOT NULL,
  brand              text,
  icon_url           text,
  moderation_status  text NOT NULL,
  moderation_reason  text,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX creatives_user_idx ON creatives (user_id, created_at);

CREATE TABLE blocks (
  campaign_id         text NOT NULL REFERENCES campaigns(campaign_id),
  block_index         integer NOT NULL,
  status              text NOT NULL,
  impressions_target  integer NOT NULL,
  impressions_served  integer NOT NULL DEFAULT 0 CHECK (impressions_served >= 0),
  started_at          timestamptz,
  exhausted_at        timestamptz,
  PRIMARY KEY (campaign_id, block_index),
  CHECK (impressions_served <= impressions_target)
);

-- One row per (account, idempotency key): the fingerprint of the normalized
-- payload and the original 201 body, replayed verbatim.
CREATE TABLE campaign_create_requests (
  user_id          text NOT NULL REFERENCES accounts(user_id),
  idempotency_key  text NOT NULL,
  fingerprint      text NOT NULL,
  campaign_id      text NOT NULL REFERENCES campaigns(campaign_id),
  response         jsonb NOT NULL,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (user_id, idempotency_key)
);

CREATE TABLE previews (
  token_hash       bytea PRIMARY KEY,
  user_id          text NOT NULL REFERENCES accounts(user_id),
  campaign_id      text REFERENCES campaigns(campaign_id),
  ad_line          text NOT NULL,
  destination_url  text NOT NULL,
  brand            text,
  icon_url         text,
  target_surface   text NOT NULL,
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  revoked_at       timestamptz
);
CREATE INDEX previews_expiry_idx ON previews (expires_at);
