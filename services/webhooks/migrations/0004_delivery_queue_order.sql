-- Queue order. Deliveries queued by one statement (a run of events) share their due time, so the
-- due time alone does not say which came first; `seq` does (a run's deliveries get it in event
-- order). Claims take due rows by (next_attempt_at, seq) and workers start them in that order, so
-- an order's order-created goes out before its order-status-updated.
ALTER TABLE delivery ADD COLUMN seq BIGSERIAL;
DROP INDEX delivery_due_idx;
CREATE INDEX delivery_due_idx ON delivery (next_attempt_at, seq) WHERE status IN ('pending', 'sending');
