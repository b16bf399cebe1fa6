-- Fence tokens (docs/orders.md, "When a change does not finish"): each journal row names its
-- change's token, sent with every stock call the change makes for the order; a change that finds
-- an earlier change's row raises the order's fence in stock to a newer token before it puts the
-- order's stock right, so the earlier change's late calls are refused there. One sequence: tokens
-- only grow, whichever order they are for. Rows written before this column get a token now.
CREATE SEQUENCE stock_fence;
ALTER TABLE stock_step ADD COLUMN fence BIGINT NOT NULL DEFAULT nextval('stock_fence');
ALTER SEQUENCE stock_fence OWNED BY stock_step.fence;
