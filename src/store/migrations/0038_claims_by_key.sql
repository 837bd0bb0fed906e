-- The once-per-impression claims keyed by 16 bytes of the impression id's SHA-256 instead of the id
-- itself (issue 53; docs/decisions/0580-a-claim-is-keyed-by-16-bytes-of-the-impressions-sha-256.md).
--
-- An impression id is a sealed token of about 200 characters; 0031's claims held it twice, in the row
-- and in the primary key's btree: 746 of the ~2,450 WAL bytes a billable view wrote (docs/performance.md,
-- "WAL per billable view"). The key is now `ledger_claim_key(impression_id)`, the first 16 bytes of
-- SHA-256 over the id's UTF-8 bytes, and every statement that claims or looks a claim up derives it
-- with this one function (src/store/ledger.ts, ledger-state.ts, traffic-review.ts). The ledger rows
-- keep the full id: a claim only says "taken".
--
-- The rows are copied into a new table (no dead tuples, no rewrite of the old one in place) and the
-- primary key keeps its name, ledger_claims_pkey: a batch inserting claims without ON CONFLICT
-- recognises a repeat by it (src/store/ledger.ts#isRace).

CREATE FUNCTION ledger_claim_key(impression_id text) RETURNS bytea
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT substring(sha256(convert_to(impression_id, 'UTF8')) FROM 1 FOR 16) $$;

ALTER TABLE ledger_claims RENAME TO ledger_claims_by_id;
ALTER INDEX ledger_claims_pkey RENAME TO ledger_claims_by_id_pkey;

CREATE TABLE ledger_claims (
  impression_key bytea NOT NULL CHECK (length(impression_key) = 16),
  kind           text NOT NULL CHECK (kind IN ('view', 'click', 'repeat_view', 'expired_view', 'voided_impression', 'voided_click')),
  claimed_at     timestamptz NOT NULL,
  CONSTRAINT ledger_claims_pkey PRIMARY KEY (impression_key, kind)
);

INSERT INTO ledger_claims (impression_key, kind, claimed_at)
  SELECT ledger_claim_key(impression_id), kind, claimed_at FROM ledger_claims_by_id;

DROP TABLE ledger_claims_by_id;
