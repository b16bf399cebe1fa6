-- The stock service's tables. prisma/schema.prisma describes them; test/schema.int.spec.ts fails
-- when the two disagree. CHECKs, the partial unique index on placed holds and the feed's partial
-- covering index are here only (Prisma cannot express them).

-- Read model of the catalog's products, fed by product.* events (full state, newest `version`
-- wins). Version 0 is a row written by the demo seeder before any event: every event overrides it.
CREATE TABLE product (
  uuid          UUID PRIMARY KEY,
  team_code     TEXT NOT NULL,
  sku           TEXT CHECK (length(sku) <= 255),
  active_state  TEXT NOT NULL CHECK (active_state IN ('active', 'inactive', 'pre-order')),
  pod_enabled   BOOLEAN NOT NULL,
  pod_approved  BOOLEAN NOT NULL,
  deleted       BOOLEAN NOT NULL DEFAULT false,
  version       INTEGER NOT NULL CHECK (version >= 0),
  updated_at    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  -- Target of the composite foreign keys that keep stock and holds inside the product's team.
  CONSTRAINT product_uuid_team_code_key UNIQUE (uuid, team_code)
);

-- The stock-levels feed walks one team's listed products in uuid order (keyset pagination); the
-- included columns let it do so without visiting the table.
CREATE INDEX product_feed ON product (team_code, uuid) INCLUDE (sku, pod_enabled, pod_approved) WHERE NOT deleted;

CREATE TABLE warehouse (
  id            UUID PRIMARY KEY,
  team_code     TEXT NOT NULL,
  code          TEXT NOT NULL CHECK (code ~ '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$'),
  name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- ISO 3166-1 alpha-2 (the list of assigned codes is checked by the domain).
  country_code  TEXT NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
  enabled       BOOLEAN NOT NULL DEFAULT true,
  created_at    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT warehouse_team_code_code_key UNIQUE (team_code, code),
  CONSTRAINT warehouse_id_team_code_key UNIQUE (id, team_code)
);

-- Stock of one product in one warehouse. `held` is the sum of the placed holds on this row (kept
-- in the same transactions as the holds), so the figure needs no pass over the holds.
-- `on_hand` may fall below `held` when a count is set lower than what orders hold; the figure
-- then counts 0 for this warehouse, never a negative number.
CREATE TABLE stock_level (
  product_uuid  UUID NOT NULL,
  warehouse_id  UUID NOT NULL,
  team_code     TEXT NOT NULL,
  on_hand       INTEGER NOT NULL CHECK (on_hand >= 0),
  held          INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0),
  updated_at    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (product_uuid, warehouse_id),
  CONSTRAINT stock_level_product_fkey FOREIGN KEY (product_uuid, team_code) REFERENCES product (uuid, team_code),
  CONSTRAINT stock_level_warehouse_fkey FOREIGN KEY (warehouse_id, team_code) REFERENCES warehouse (id, team_code)
);
CREATE INDEX stock_level_warehouse_id_idx ON stock_level (warehouse_id);

-- Every change of `on_hand`: who, by how much, why.
CREATE TABLE stock_adjustment (
  id             BIGSERIAL PRIMARY KEY,
  team_code      TEXT NOT NULL,
  product_uuid   UUID NOT NULL,
  warehouse_id   UUID NOT NULL,
  kind           TEXT NOT NULL CHECK (kind IN ('set', 'adjust', 'consume')),
  delta          INTEGER NOT NULL,
  on_hand_after  INTEGER NOT NULL CHECK (on_hand_after >= 0),
  reason         TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  actor          TEXT NOT NULL,
  at             TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT stock_adjustment_stock_level_fkey FOREIGN KEY (product_uuid, warehouse_id) REFERENCES stock_level (product_uuid, warehouse_id)
);
CREATE INDEX stock_adjustment_product_uuid_warehouse_id_idx ON stock_adjustment (product_uuid, warehouse_id);

-- Stock held for one order line in one location: a warehouse, or print on demand (warehouse_id
-- NULL, no stock held). A line may be split over several warehouses.
CREATE TABLE stock_hold (
  id            BIGSERIAL PRIMARY KEY,
  team_code     TEXT NOT NULL,
  order_uuid    UUID NOT NULL,
  line_number   INTEGER NOT NULL CHECK (line_number >= 0),
  product_uuid  UUID NOT NULL,
  warehouse_id  UUID,
  quantity      INTEGER NOT NULL CHECK (quantity > 0),
  status        TEXT NOT NULL CHECK (status IN ('placed', 'released', 'consumed')),
  placed_at     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  released_at   TIMESTAMPTZ(3),
  consumed_at   TIMESTAMPTZ(3),
  CONSTRAINT stock_hold_status_times CHECK (
    (status = 'placed' AND released_at IS NULL AND consumed_at IS NULL) OR
    (status = 'released' AND released_at IS NOT NULL AND consumed_at IS NULL) OR
    (status = 'consumed' AND consumed_at IS NOT NULL AND released_at IS NULL)),
  CONSTRAINT stock_hold_product_fkey FOREIGN KEY (product_uuid, team_code) REFERENCES product (uuid, team_code),
  CONSTRAINT stock_hold_warehouse_fkey FOREIGN KEY (warehouse_id, team_code) REFERENCES warehouse (id, team_code)
);
CREATE INDEX stock_hold_order_uuid_idx ON stock_hold (order_uuid);
-- One placed hold per order line and location (print on demand counted as one location).
CREATE UNIQUE INDEX stock_hold_one_placed_per_line_location
  ON stock_hold (order_uuid, line_number, COALESCE(warehouse_id, '00000000-0000-0000-0000-000000000000'::uuid))
  WHERE status = 'placed';
