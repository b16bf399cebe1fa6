-- Stock read model: each product's stock figure (rule S1, what `GET /stock-levels` reports), fed
-- by stock's `stock-level.changed` events through the inbox. It derives the fulfillable status of
-- orders whose stock is not theirs yet (docs/orders.md, "fulfillableStatus from stock").
-- `changed_at` is the changedAt of the event that wrote the row; an older event never overwrites
-- a newer figure.
CREATE TABLE stock_figure (
  product_uuid  UUID PRIMARY KEY,
  team_code     TEXT NOT NULL,
  stock         INTEGER NOT NULL CHECK (stock >= 0),
  changed_at    TIMESTAMPTZ(3) NOT NULL
);

-- The orders a figure change may concern: without held stock and not sent (the statuses of
-- STOCK_DERIVED_STATUSES in src/domain/fulfillability.ts), per team. Bounded by the open work of
-- a team, unlike an index of order_line by product, which would list every line ever written.
CREATE INDEX orders_stock_derived_idx ON orders (team_code)
  WHERE NOT stock_held AND status IN ('draft', 'queued', 'scheduled', 'holding', 'error');
