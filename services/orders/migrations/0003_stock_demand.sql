-- What each order that follows stock needs of each product (the sum of its lines naming it), kept
-- only while the order follows stock (no stock held, nothing sent: derivesFromStock in
-- src/domain/fulfillability.ts). A change of a product's figure concerns only the needs between
-- its old and new figure (or every need when it goes to or from 0): the index answers those
-- without reading the other orders, however many drafts a team keeps.
CREATE TABLE stock_demand (
  order_uuid    UUID NOT NULL,
  product_uuid  UUID NOT NULL,
  needed        INTEGER NOT NULL CHECK (needed > 0),
  PRIMARY KEY (order_uuid, product_uuid)
);
CREATE INDEX stock_demand_product_needed_idx ON stock_demand (product_uuid, needed);

-- The orders that follow stock today.
INSERT INTO stock_demand (order_uuid, product_uuid, needed)
SELECT l.order_uuid, l.product_uuid, sum(l.quantity)
  FROM order_line l JOIN orders o ON o.uuid = l.order_uuid
 WHERE l.product_uuid IS NOT NULL
   AND NOT o.stock_held AND o.status IN ('draft', 'queued', 'scheduled', 'holding', 'error')
   AND NOT EXISTS (SELECT 1 FROM fulfilment f WHERE f.order_uuid = o.uuid AND f.status <> 'draft')
 GROUP BY l.order_uuid, l.product_uuid;

-- Replaced by stock_demand: it made every figure change read every open order of the team.
DROP INDEX orders_stock_derived_idx;
