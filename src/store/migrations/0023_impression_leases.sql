-- Impression budget leases (docs/decisions/0096-a-lease-is-a-range-of-a-campaigns-impression-numbers.md; src/store/leases.ts). A lease is a range
-- [first_seq, first_seq + size) of a campaign's impression numbers (number n is the campaign's n-th
-- billable impression, debiting impressionDebitMicros(cpm_micros, n)), held by one serving instance
-- (`holder`; null: free for any instance to take), consumed in order: `used` numbers are billed
-- (their ledger rows committed with the `used` that counts them) but not yet settled into
-- campaigns.impressions_billed / lifetime_spent_micros.
--
-- Invariant: impressions_leased = impressions_billed + the sum of the campaign's lease sizes (the
-- ranges are disjoint and within 1..impressions), so used <= size bounds what is billed by what was
-- bought, across any number of instances.
ALTER TABLE campaigns ADD COLUMN impressions_leased bigint NOT NULL DEFAULT 0;
UPDATE campaigns SET impressions_leased = impressions_billed;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_leased_within_order
  CHECK (impressions_leased >= impressions_billed AND impressions_leased <= impressions);

CREATE TABLE impression_leases (
  lease_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  campaign_id  text NOT NULL REFERENCES campaigns(campaign_id),
  holder       text,
  first_seq    bigint NOT NULL CHECK (first_seq >= 1),
  size         integer NOT NULL,
  used         integer NOT NULL DEFAULT 0,
  cpm_micros   bigint NOT NULL,
  -- Real time (the store's clock, not the service's: tests move that by hours).
  expires_at   timestamptz NOT NULL,
  CONSTRAINT impression_leases_used_within CHECK (used >= 0 AND used <= size)
);
CREATE INDEX impression_leases_campaign ON impression_leases (campaign_id);
CREATE INDEX impression_leases_holder ON impression_leases (holder) WHERE holder IS NOT NULL;

-- Billed but unsettled, per campaign: the one SQL home of "delivered = impressions_billed + Σ used"
-- and "spend = lifetime_spent_micros + Σ spend(first_seq .. first_seq + used − 1)" (exact:
-- floor(b·c/1000) − floor((a−1)·c/1000) for the range [a, b], as domain/money.ts prices it).
CREATE VIEW campaign_lease_use AS
  SELECT campaign_id,
         sum(used)::bigint AS used,
         sum((first_seq + used - 1) * cpm_micros / 1000 - (first_seq - 1) * cpm_micros / 1000)::bigint AS spent_micros
  FROM impression_leases WHERE used > 0
  GROUP BY campaign_id;
