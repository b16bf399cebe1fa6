-- Consumed stock comes back (docs/stock.md, "When consumed stock comes back"): a fulfilment that
-- was sent but never left the warehouse (its order cancelled or sent back to holding, or the
-- supplier cancelled it) gives back to on hand what its holds took.
--
-- `taken`: what consuming took off hand. It may be less than the quantity (a count set below what
-- orders held leaves less to take), so a return gives back exactly `taken`, never more than left.
-- `returned_at`: when a consumed hold's stock came back (status `returned`).
ALTER TABLE stock_hold ADD COLUMN taken INTEGER NOT NULL DEFAULT 0;
ALTER TABLE stock_hold ADD COLUMN returned_at TIMESTAMPTZ(3);

-- Holds consumed before this migration: what their `consume` adjustment took. Consuming writes
-- the hold's consumed_at and its adjustment's `at` from one instant, with the reason naming the
-- order and line; one placed hold per order line and warehouse makes the match unique.
UPDATE stock_hold h
   SET taken = COALESCE((SELECT -sum(a.delta)::int
                           FROM stock_adjustment a
                          WHERE a.kind = 'consume'
                            AND a.product_uuid = h.product_uuid
                            AND a.warehouse_id = h.warehouse_id
                            AND a.at = h.consumed_at
                            AND a.reason = 'Order ' || h.order_uuid::text || ' line ' || h.line_number || ' sent'), 0)
 WHERE h.status = 'consumed' AND h.warehouse_id IS NOT NULL;

ALTER TABLE stock_hold DROP CONSTRAINT stock_hold_status_check;
ALTER TABLE stock_hold ADD CONSTRAINT stock_hold_status_check CHECK (status IN ('placed', 'released', 'consumed', 'returned'));
ALTER TABLE stock_hold DROP CONSTRAINT stock_hold_status_times;
ALTER TABLE stock_hold ADD CONSTRAINT stock_hold_status_times CHECK (
  (status = 'placed' AND released_at IS NULL AND consumed_at IS NULL AND returned_at IS NULL) OR
  (status = 'released' AND released_at IS NOT NULL AND consumed_at IS NULL AND returned_at IS NULL) OR
  (status = 'consumed' AND consumed_at IS NOT NULL AND released_at IS NULL AND returned_at IS NULL) OR
  (status = 'returned' AND consumed_at IS NOT NULL AND returned_at IS NOT NULL AND released_at IS NULL));
-- Only a consumed or returned warehouse hold has taken anything, and never more than its quantity.
ALTER TABLE stock_hold ADD CONSTRAINT stock_hold_taken CHECK (
  taken >= 0 AND taken <= quantity AND (taken = 0 OR (warehouse_id IS NOT NULL AND status IN ('consumed', 'returned'))));

ALTER TABLE stock_adjustment DROP CONSTRAINT stock_adjustment_kind_check;
ALTER TABLE stock_adjustment ADD CONSTRAINT stock_adjustment_kind_check CHECK (kind IN ('set', 'adjust', 'consume', 'return'));
