-- Email bodies sealed at rest (issue 34;
-- docs/decisions/0361-the-link-is-sealed-apart-from-the-body.md). body_sealed is the body under the key-sealing key (AES-256-GCM, bound to the message
-- id). A password link is not in it: it is sealed apart in link_sealed and put back at link_at
-- (a character offset in the body) when the message is read while the link works. Ending a link
-- (used, replaced by a newer one, the password set or changed, expired) sets link_sealed to NULL
-- and says why in link_ended: redaction needs no key. link_token_hash is the SHA-256 of the
-- link's token, the key of password_tokens, so the statement that ends a token redacts its copy.
ALTER TABLE outbox ALTER COLUMN body DROP NOT NULL;
ALTER TABLE outbox ADD COLUMN body_sealed bytea NULL;
ALTER TABLE outbox ADD COLUMN link_at integer NULL;
ALTER TABLE outbox ADD COLUMN link_sealed bytea NULL;
ALTER TABLE outbox ADD COLUMN link_token_hash bytea NULL;
ALTER TABLE outbox ADD COLUMN link_expires_at timestamptz NULL;
ALTER TABLE outbox ADD COLUMN link_ended text NULL
  CHECK (link_ended IN ('used', 'replaced', 'password_changed', 'expired'));

-- A body is either still clear (a row written before this migration, until start-up seals it:
-- services/email.ts#sealClearOutbox) or sealed, never both.
ALTER TABLE outbox ADD CONSTRAINT outbox_one_body CHECK ((body IS NULL) <> (body_sealed IS NULL));
-- A message with a link has its token digest, deadline, and either the sealed link or why it ended.
ALTER TABLE outbox ADD CONSTRAINT outbox_link CHECK (
  CASE WHEN link_at IS NULL
    THEN link_sealed IS NULL AND link_token_hash IS NULL AND link_expires_at IS NULL AND link_ended IS NULL
    ELSE body_sealed IS NOT NULL AND link_at >= 0 AND link_token_hash IS NOT NULL AND link_expires_at IS NOT NULL
      AND (link_sealed IS NULL) <> (link_ended IS NULL)
  END
);

CREATE INDEX outbox_live_links ON outbox (link_token_hash) WHERE link_sealed IS NOT NULL;
CREATE INDEX outbox_live_link_expiry ON outbox (link_expires_at) WHERE link_sealed IS NOT NULL;
CREATE INDEX outbox_clear_bodies ON outbox (seq) WHERE body IS NOT NULL;

-- The rows written before: a migration holds no sealing key, so their password links are removed
-- here (a link already mailed keeps working for its recipient until it expires); start-up seals
-- what is left of their bodies.
UPDATE outbox
SET body = regexp_replace(body, 'https?://[^[:space:]]*/portal/reset-password\?token=[^[:space:]]*',
                          '[link removed: emails are now sealed at rest]', 'g')
WHERE body LIKE '%/portal/reset-password?token=%';
