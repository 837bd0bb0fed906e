-- The serving write path in one statement per group-commit batch
-- (store/ledger.ts; docs/performance.md).

-- Each viewer's last billable impression per surface: the ten-second rule is
-- one keyed read and one keyed upsert instead of max(occurred_at) over the
-- ledger. The upsert only moves the instant forward when ten seconds passed,
-- so two writers billing the same viewer at once cannot both succeed.
CREATE TABLE viewer_last_billable (
  viewer_key    text NOT NULL,
  surface       text NOT NULL,
  billed_at_ms  bigint NOT NULL,
  PRIMARY KEY (viewer_key, surface)
);
INSERT INTO viewer_last_billable (viewer_key, surface, billed_at_ms)
  SELECT viewer_key, surface, floor(extract(epoch FROM max(occurred_at)) * 1000)::bigint
  FROM ledger_events WHERE event_type = 'impression'
  GROUP BY viewer_key, surface;
DROP INDEX ledger_viewer_billable;

-- Block progress is a pure function of campaigns.impressions_billed
-- (domain/delivery.ts blockServed); only block status changes are stored.
ALTER TABLE blocks DROP COLUMN impressions_served;

-- The serving epoch moves on real changes only: a batch that bills
-- impressions writes campaigns.status (to complete a campaign when its last
-- block is exhausted) without changing it on every other batch.
DROP TRIGGER campaigns_serving_epoch ON campaigns;
CREATE TRIGGER campaigns_serving_epoch_rows
  AFTER INSERT OR DELETE ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION bump_serving_epoch();
CREATE TRIGGER campaigns_serving_epoch_changes
  AFTER UPDATE ON campaigns
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status
     OR OLD.cpm_micros IS DISTINCT FROM NEW.cpm_micros
     OR OLD.target_surface IS DISTINCT FROM NEW.target_surface
     OR OLD.target_countries IS DISTINCT FROM NEW.target_countries
     OR OLD.pace_minutes IS DISTINCT FROM NEW.pace_minutes
     OR OLD.impressions IS DISTINCT FROM NEW.impressions
     OR OLD.activated_at IS DISTINCT FROM NEW.activated_at
     OR OLD.paused_ms IS DISTINCT FROM NEW.paused_ms)
  EXECUTE FUNCTION bump_serving_epoch();

-- Aborts a batch statement whose reads another writer overtook (inventory
-- taken, viewer billed, campaign cancelled); the writer re-reads and retries.
CREATE FUNCTION ledger_batch_check(ok boolean) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT ok THEN
    RAISE EXCEPTION 'a concurrent ledger batch changed what this batch decided on'
      USING ERRCODE = 'serialization_failure';
  END IF;
  RETURN true;
END
$$;
