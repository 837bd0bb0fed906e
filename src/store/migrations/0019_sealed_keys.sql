-- The recoverable copy of the current API key, for the portal's "Reveal"
-- (docs/decisions/0238-revealable-keys-are-sealed-not-stored-in-clear.md): AES-256-GCM under the key-sealing key (KEY_SEALING_KEY, else the settings row
-- `key_sealing_key`), bound to the account. Authentication still compares api_key_hash only.
-- NULL for keys issued before this migration: they cannot be revealed, only rotated.
ALTER TABLE accounts ADD COLUMN api_key_sealed bytea NULL;
