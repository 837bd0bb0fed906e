-- Offers are counted, not stored (issue 33; operations.md section 6).
--
-- 1. A decision writes nothing: each serving instance counts its offers in memory per
--    (UTC minute, campaign, creative, surface, country) and adds the counts here every few seconds
--    (src/serving/offer-counter.ts; one upsert row per key). The `events` metric, the rollups and
--    the auction quote's clearing price read these counts where they read offer rows before.
--    Keyed by creative first: the quote probes a creative's minutes in a window.
CREATE TABLE offer_counts (
  minute       timestamptz NOT NULL,
  user_id      text NOT NULL,
  campaign_id  text NOT NULL,
  creative_id  text NOT NULL,
  surface      text NOT NULL,
  country      text NOT NULL DEFAULT '',
  offers       bigint NOT NULL CHECK (offers > 0),
  PRIMARY KEY (creative_id, minute, surface, country)
);
CREATE INDEX offer_counts_minute ON offer_counts (minute);
CREATE INDEX offer_counts_account_minute ON offer_counts (user_id, minute);

-- 2. The offer rows written so far become counts, and leave the ledger (no export lists an offer).
INSERT INTO offer_counts (minute, user_id, campaign_id, creative_id, surface, country, offers)
SELECT date_trunc('minute', occurred_at), min(user_id), min(campaign_id), creative_id, surface, coalesce(country, ''), count(*)
FROM ledger_events WHERE event_type = 'offer'
GROUP BY 1, 4, 5, 6;
DELETE FROM ledger_events WHERE event_type = 'offer';
ALTER TABLE ledger_events DROP CONSTRAINT ledger_event_type_known;
ALTER TABLE ledger_events
  ADD CONSTRAINT ledger_event_type_known
    CHECK (event_type IN ('impression', 'view', 'click', 'repeat_view', 'expired_view', 'voided_impression', 'voided_click')) NOT VALID;

-- 3. The serving state reaches every instance by push: each change of the epoch is announced on
--    the channel `serving_epoch` with the new epoch (src/serving/auction-index.ts listens).
CREATE OR REPLACE FUNCTION bump_serving_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  moved bigint;
BEGIN
  UPDATE serving_epoch SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch INTO moved;
  PERFORM pg_notify('serving_epoch', moved::text);
  RETURN NULL;
END
$$;
