-- When the catalog made the product state the read model holds (its event's occurredAt). A SKU
-- passes from one product to another (one deleted or renamed, another given its SKU); their events
-- travel on different partitions, so for a moment both may read live with that SKU here. The line
-- then matches the product whose state is the newer. Null for states stored before this column.
ALTER TABLE product ADD COLUMN state_at TIMESTAMPTZ(3);
