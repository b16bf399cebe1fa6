-- Each order's stock fence: the highest fence token the orders service has put up for it. When a
-- change of an order ends without knowing what its last stock call did (a time-out), the next
-- change of the order raises the fence before it puts the order's holds right; a call of the
-- earlier change that reaches stock afterwards carries a lower token and is refused, so it cannot
-- undo the repair. Orders that were never repaired have no row (nothing is refused for them).
CREATE TABLE order_fence (
  order_uuid UUID PRIMARY KEY,
  fence BIGINT NOT NULL CHECK (fence > 0),
  raised_at TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
