-- Products and shipping methods of each team. prisma/schema.prisma describes these tables; the
-- drift test fails when the two disagree. CHECKs and partial unique indexes (which Prisma cannot
-- express) are here only: they back the domain rules of src/domain up, they do not replace them.

CREATE TABLE product (
  uuid                 UUID PRIMARY KEY,
  team_code            TEXT NOT NULL CHECK (team_code ~ '^[a-z0-9]{2,32}$'),
  -- NULL: the product has no SKU. Present: 1-255 characters, no surrounding whitespace.
  sku                  VARCHAR(255) CHECK (sku IS NULL OR (length(sku) >= 1 AND sku = btrim(sku))),
  name                 VARCHAR(255) NOT NULL CHECK (length(btrim(name)) >= 1),
  description          TEXT CHECK (description IS NULL OR length(description) <= 5000),
  active_state         TEXT NOT NULL DEFAULT 'active' CHECK (active_state IN ('active', 'inactive', 'pre-order')),
  pod_enabled          BOOLEAN NOT NULL DEFAULT false,
  pod_approved         BOOLEAN NOT NULL DEFAULT false,
  -- Dimensions: four optional measures, each a positive measurement with its unit, or neither.
  -- (The CHECKs spell out IS NOT NULL: a NULL comparison would make a CHECK pass.)
  weight_measurement   NUMERIC(12, 3),
  weight_unit          TEXT,
  length_measurement   NUMERIC(12, 3),
  length_unit          TEXT,
  width_measurement    NUMERIC(12, 3),
  width_unit           TEXT,
  depth_measurement    NUMERIC(12, 3),
  depth_unit           TEXT,
  -- Grows by one with every change; events carry it so read models ignore stale deliveries.
  version              INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  created_at           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  -- Soft deletion: the row stays (history, read models), but no read shows it.
  deleted_at           TIMESTAMPTZ(3),
  CONSTRAINT product_weight_is_a_measure CHECK (
    (weight_measurement IS NULL AND weight_unit IS NULL)
    OR (weight_measurement IS NOT NULL AND weight_unit IS NOT NULL AND weight_measurement > 0 AND weight_unit IN ('g', 'kg', 'oz', 'lb'))),
  CONSTRAINT product_length_is_a_measure CHECK (
    (length_measurement IS NULL AND length_unit IS NULL)
    OR (length_measurement IS NOT NULL AND length_unit IS NOT NULL AND length_measurement > 0 AND length_unit IN ('cm', 'mm', 'm', 'in'))),
  CONSTRAINT product_width_is_a_measure CHECK (
    (width_measurement IS NULL AND width_unit IS NULL)
    OR (width_measurement IS NOT NULL AND width_unit IS NOT NULL AND width_measurement > 0 AND width_unit IN ('cm', 'mm', 'm', 'in'))),
  CONSTRAINT product_depth_is_a_measure CHECK (
    (depth_measurement IS NULL AND depth_unit IS NULL)
    OR (depth_measurement IS NOT NULL AND depth_unit IS NOT NULL AND depth_measurement > 0 AND depth_unit IN ('cm', 'mm', 'm', 'in')))
);

-- A SKU names at most one live product of a team. Two concurrent creates (or updates) with the
-- same SKU: exactly one commits, the other fails on this index and is answered as a conflict.
-- A deleted product frees its SKU for a new product.
CREATE UNIQUE INDEX product_sku_per_team ON product (team_code, sku) WHERE sku IS NOT NULL AND deleted_at IS NULL;

-- Both listings (back-office newest first, channel pages oldest first) and their counts walk this
-- index within one team.
CREATE INDEX product_team_listing ON product (team_code, created_at, uuid);

CREATE TABLE shipping_method (
  team_code            TEXT NOT NULL CHECK (team_code ~ '^[a-z0-9]{2,32}$'),
  -- What an integration sends when confirming an order.
  code                 TEXT NOT NULL CHECK (code ~ '^[a-z0-9]([a-z0-9_-]{0,62}[a-z0-9])?$'),
  name                 VARCHAR(200) NOT NULL CHECK (length(btrim(name)) >= 1),
  carrier              VARCHAR(100) NOT NULL CHECK (length(btrim(carrier)) >= 1),
  active               BOOLEAN NOT NULL DEFAULT true,
  -- ISO 3166-1 alpha-2 destination countries served; empty: every country.
  country_codes        TEXT[] NOT NULL DEFAULT '{}',
  service_level        TEXT NOT NULL DEFAULT 'standard' CHECK (service_level IN ('economy', 'standard', 'express')),
  tracked              BOOLEAN NOT NULL DEFAULT false,
  -- Estimated delivery time in working days, both or neither.
  min_delivery_days    INTEGER,
  max_delivery_days    INTEGER,
  -- Preference when the order names no method: the lowest priority that serves the destination.
  priority             INTEGER NOT NULL DEFAULT 100 CHECK (priority BETWEEN 0 AND 10000),
  version              INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
  created_at           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  deleted_at           TIMESTAMPTZ(3),
  -- The code stays taken after deletion: re-creating it revives this row, so its version (and the
  -- read models keyed by <team>:<code>) keep growing instead of starting again at 1.
  CONSTRAINT shipping_method_pkey PRIMARY KEY (team_code, code),
  CONSTRAINT shipping_method_country_codes CHECK (array_position(country_codes, NULL) IS NULL
    AND array_to_string(country_codes, ',') ~ '^([A-Z]{2}(,[A-Z]{2})*)?$'),
  CONSTRAINT shipping_method_delivery_days CHECK (
    (min_delivery_days IS NULL AND max_delivery_days IS NULL)
    OR (min_delivery_days IS NOT NULL AND max_delivery_days IS NOT NULL
        AND min_delivery_days BETWEEN 0 AND 365 AND max_delivery_days BETWEEN min_delivery_days AND 365))
);
