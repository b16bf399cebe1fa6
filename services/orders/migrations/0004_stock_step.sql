-- Orders whose change has asked the stock service to hold, release, consume or return stock and
-- has not committed yet. Written (and committed) before the first such call, deleted by the
-- change's own COMMIT, or after its compensations ran when it did not commit. A row left behind
-- means the process ended in between: the stock repair (src/use-cases/stock-repair.ts) makes the
-- order's holds match the order as committed, then deletes the row.
CREATE TABLE stock_step (
  order_uuid  UUID PRIMARY KEY,
  started_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX stock_step_started_at_idx ON stock_step (started_at);
