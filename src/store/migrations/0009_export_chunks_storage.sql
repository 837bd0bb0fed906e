-- Export artifacts are stored uncompressed (docs/performance-reporting.md,
-- exports): TOAST's pglz compression of every 256 KiB chunk was half of the
-- time spent storing an artifact (27 MB, 250,000 rows, on PostgreSQL: 0.9 s
-- compressed, 0.45 s not). Artifacts live 24 hours; the space is traded for
-- the rate.
ALTER TABLE export_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
