-- The hot reads (channel pages and their totals, back-office lists without deleted products) look
-- only at live products: this partial index serves their order, their keyset bounds and, with
-- active_state included, their counts as index-only scans. product_team_listing stays for the
-- back-office lists that include deleted products.
CREATE INDEX product_live_listing ON product (team_code, created_at, uuid) INCLUDE (active_state) WHERE deleted_at IS NULL;
