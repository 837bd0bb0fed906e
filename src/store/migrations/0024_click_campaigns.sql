-- Click campaigns (docs/decisions/0103-what-a-click-campaign-buys.md
-- to 0116). A campaign of kind
-- 'click' buys `impressions` clicks: its impression numbers, leases, impressions_billed, blocks and
-- lifetime_spent_micros count billable clicks, and the n-th billable click debits
-- impressionDebitMicros(cpm_micros, n). Its qualified views stay `impression` rows (billable, so
-- billable_impressions and ctr mean the same for both kinds) with debit_micros 0.
--
-- The ledger's rows after this migration:
--   offer       not billable, no debit
--   impression  a qualified view: billable; its debit is 0 on a click campaign
--   view        a measured view that did not qualify: not billable, no debit, reason says why
--   click       the first click of an impression: billable (with its debit) only on a click
--               campaign; a click campaign's non-billable click carries its reason
-- The two CHECKs of 0002 tied `billable` and debits to `impression` rows alone. NOT VALID: every
-- existing row satisfies the new ones (they only admit more), so the ledger is not scanned.
ALTER TABLE ledger_events DROP CONSTRAINT ledger_events_check;
ALTER TABLE ledger_events DROP CONSTRAINT ledger_events_check1;
ALTER TABLE ledger_events
  ADD CONSTRAINT ledger_billable_by_type
    CHECK (CASE event_type WHEN 'impression' THEN billable WHEN 'click' THEN true ELSE NOT billable END) NOT VALID,
  ADD CONSTRAINT ledger_debit_only_billable CHECK (debit_micros = 0 OR billable) NOT VALID;

ALTER TABLE campaigns ADD CONSTRAINT campaigns_kind_known CHECK (kind IN ('impression', 'click')) NOT VALID;

-- Until now a click campaign was sold and billed per impression. One that delivered anything keeps
-- that unit to its end (its counters hold impressions): it becomes an impression campaign. One that
-- delivered nothing yet is billed per click from now on.
UPDATE campaigns SET kind = 'impression' WHERE kind = 'click' AND (impressions_billed > 0 OR impressions_leased > 0);

-- At most one billable click per viewer, campaign and UTC day (the service clock's day of the
-- click). Written in the ledger statement that records the click; a row already there fails it.
CREATE TABLE viewer_click_days (
  campaign_id  text NOT NULL,
  viewer_key   text NOT NULL,
  day          date NOT NULL,
  PRIMARY KEY (campaign_id, viewer_key, day)
);

-- Click campaigns' qualified views (`impression` rows) and clicks per surface, the auction's CTR
-- estimate (src/domain/ctr.ts). Counted by the ledger statement that writes the rows, one row per
-- serving instance (`holder`, as in impression_leases) so that no two instances update one row;
-- a reader sums over holders.
CREATE TABLE click_ctr_counts (
  campaign_id  text NOT NULL,
  surface      text NOT NULL,
  holder       text NOT NULL,
  impressions  bigint NOT NULL DEFAULT 0 CHECK (impressions >= 0),
  clicks       bigint NOT NULL DEFAULT 0 CHECK (clicks >= 0),
  PRIMARY KEY (campaign_id, surface, holder)
);
