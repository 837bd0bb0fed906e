-- Serving: the append-only impression ledger, billed counters on campaigns,
-- and the serving epoch that tells every instance its auction index is stale.

ALTER TABLE campaigns ADD COLUMN impressions_billed integer NOT NULL DEFAULT 0;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_billed_within_order CHECK (impressions_billed >= 0 AND impressions_billed <= impressions);
ALTER TABLE campaigns ADD COLUMN completed_at timestamptz;

-- Append-only: rows are inserted, never updated or deleted.
--   offer       a decision that offered the line (not billable)
--   impression  a measured view that was billable (debit_micros > 0)
--   view        a measured view that was not billable; reason says why
--   click       the first click of an impression
-- viewer_key is a keyed hash of the viewer id, never exported.
CREATE TABLE ledger_events (
  event_id       bigserial PRIMARY KEY,
  occurred_at    timestamptz NOT NULL,
  event_type     text NOT NULL CHECK (event_type IN ('offer', 'impression', 'view', 'click')),
  impression_id  text NOT NULL,
  user_id        text NOT NULL,
  campaign_id    text NOT NULL,
  creative_id    text NOT NULL,
  surface        text NOT NULL,
  country        text,
  billable       boolean NOT NULL,
  debit_micros   bigint NOT NULL DEFAULT 0 CHECK (debit_micros >= 0),
  dwell_ms       integer,
  reason         text,
  viewer_key     text NOT NULL,
  CHECK (billable = (event_type = 'impression')),
  CHECK (debit_micros = 0 OR event_type = 'impression')
);
-- One offer, one measured view (billable or not) and one click per impression:
-- retries and concurrent instances can never bill an impression twice.
CREATE UNIQUE INDEX ledger_one_offer ON ledger_events (impression_id) WHERE event_type = 'offer';
CREATE UNIQUE INDEX ledger_one_view ON ledger_events (impression_id) WHERE event_type IN ('impression', 'view');
CREATE UNIQUE INDEX ledger_one_click ON ledger_events (impression_id) WHERE event_type = 'click';
CREATE INDEX ledger_account_time ON ledger_events (user_id, occurred_at);
CREATE INDEX ledger_viewer_billable ON ledger_events (viewer_key, surface, occurred_at) WHERE event_type = 'impression';

-- Bumped by any change that alters who may win the auction.
CREATE TABLE serving_epoch (
  id     integer PRIMARY KEY CHECK (id = 1),
  epoch  bigint NOT NULL
);
INSERT INTO serving_epoch (id, epoch) VALUES (1, 0);

CREATE FUNCTION bump_serving_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE serving_epoch SET epoch = epoch + 1 WHERE id = 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER campaigns_serving_epoch
  AFTER INSERT OR DELETE OR UPDATE OF status, cpm_micros, target_surface, target_countries, pace_minutes ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION bump_serving_epoch();
CREATE TRIGGER creatives_serving_epoch
  AFTER INSERT OR DELETE OR UPDATE OF ad_line, brand, icon_url, destination_url, moderation_status ON creatives
  FOR EACH STATEMENT EXECUTE FUNCTION bump_serving_epoch();
