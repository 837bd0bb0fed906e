-- Newest first must hold for messages written at one service-clock instant too (a sign-up's welcome
-- and a reset asked for in the same frozen second): seq is the order the outbox received them.
ALTER TABLE outbox ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX outbox_to_sent;
CREATE INDEX outbox_to_sent ON outbox (to_address, sent_at DESC, seq DESC);
