-- The ledger's exported text columns hold only what the service writes:
-- base62 ids with a type prefix, the two surfaces, ISO 3166-1 alpha-2 codes
-- (event_type is constrained since 0002). Stated here, they are facts the
-- export can rely on: no exported ledger field can hold a CSV quote trigger
-- (`,` `"` CR LF), so the store renders them without a quoting check
-- (src/store/exports.ts#exportLineSql; ~35% of the rendering time measured on
-- the embedded store, docs/performance-reporting.md). A bad value now fails
-- its insert instead of reaching the billing record.
--
-- Adding the constraints checks every existing row once (one scan of the
-- ledger, under this migration's lock).
ALTER TABLE ledger_events
  ADD CONSTRAINT ledger_surface_known CHECK (surface IN ('extension', 'terminal')),
  ADD CONSTRAINT ledger_country_code CHECK (country ~ '^[A-Z]{2}$'),
  ADD CONSTRAINT ledger_ids_plain CHECK (campaign_id ~ '^[A-Za-z0-9_]+$' AND creative_id ~ '^[A-Za-z0-9_]+$');
