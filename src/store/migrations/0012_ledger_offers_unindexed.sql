-- Offers carry no unique index. An offer row is written once by construction:
-- its impression id is new (a random nonce under the offer's MAC), and the
-- ledger writer writes each offer in exactly one batch and never retries an
-- offer batch (src/serving/ledger-writer.ts). Maintaining a unique B-tree on
-- ~200-character random ids was about a third of PostgreSQL's work per
-- decision (docs/performance.md). Measured views and clicks keep theirs
-- (ledger_one_view, ledger_one_click): repeats of those arrive from clients
-- and are dropped by these indexes, and an impression is never billed twice.
DROP INDEX ledger_one_offer;
