-- Every billing state reachable (issue 19): an operator hold laid over the
-- collection standing, and charges held by the processor until the card
-- holder authenticates them.

-- 'paused' or 'disabled' while an operator holds the account's collection;
-- collection_status keeps the standing beneath it (docs/billing.md).
ALTER TABLE accounts ADD COLUMN collection_hold text CHECK (collection_hold IN ('paused', 'disabled'));

-- The processor's charge awaiting the card holder's authentication; the
-- invoice stays open until the holder completes it or a new card replaces it.
ALTER TABLE invoices ADD COLUMN pending_charge_id text;

-- A disabled account stops serving: the auction index reloads when the hold moves too.
DROP TRIGGER accounts_serving_epoch ON accounts;
CREATE TRIGGER accounts_serving_epoch
  AFTER UPDATE OF collection_status, collection_hold ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION bump_serving_epoch();

-- Overdue Net 30 invoices are found per account at every write.
CREATE INDEX invoices_unpaid_due_idx ON invoices (user_id, due_at) WHERE status = 'open';
