-- The orders service's tables. prisma/schema.prisma describes them; test/schema.int.spec.ts fails
-- when the two disagree. CHECKs and the partial unique index of API order numbers are here only
-- (Prisma cannot express them).

-- ---------------------------------------------------------------------------------------------
-- Read models of other services' facts (principle 1), fed by their events through the inbox.
-- ---------------------------------------------------------------------------------------------

-- Teams (accounts `team.*`). Accounts' events carry no version: `state_at` is the occurredAt of
-- the event that wrote the row, and an older event never overwrites a newer state.
CREATE TABLE team (
  team_code  TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  active     BOOLEAN NOT NULL,
  state_at   TIMESTAMPTZ(3) NOT NULL
);

-- Channels (accounts `channel.*`): the code for orderFacts, the Standard channel of a team.
CREATE TABLE channel (
  channel_id    TEXT PRIMARY KEY,
  team_code     TEXT NOT NULL,
  channel_code  TEXT NOT NULL,
  name          TEXT NOT NULL,
  active        BOOLEAN NOT NULL,
  standard      BOOLEAN NOT NULL,
  state_at      TIMESTAMPTZ(3) NOT NULL
);
CREATE INDEX channel_team_code_idx ON channel (team_code);

-- Products (catalog `product.*`, newest `version` wins) for SKU matching.
CREATE TABLE product (
  uuid          UUID PRIMARY KEY,
  team_code     TEXT NOT NULL,
  sku           TEXT CHECK (length(sku) <= 255),
  active_state  TEXT NOT NULL,
  deleted       BOOLEAN NOT NULL,
  version       INTEGER NOT NULL
);
-- SKU matching looks up a team's live products by SKU.
CREATE INDEX product_team_code_sku_idx ON product (team_code, sku);

-- Shipping methods (catalog `shipping-method.changed`, newest `version` wins) for confirmation.
CREATE TABLE shipping_method (
  team_code      TEXT NOT NULL,
  code           TEXT NOT NULL,
  name           TEXT NOT NULL,
  carrier        TEXT NOT NULL,
  active         BOOLEAN NOT NULL,
  deleted        BOOLEAN NOT NULL,
  -- Destination countries served (ISO 3166-1 alpha-2); empty: every country.
  country_codes  TEXT[] NOT NULL DEFAULT '{}',
  priority       INTEGER NOT NULL DEFAULT 100,
  version        INTEGER NOT NULL,
  PRIMARY KEY (team_code, code)
);

-- ---------------------------------------------------------------------------------------------
-- Orders
-- ---------------------------------------------------------------------------------------------

-- One order. `version` grows by one with every change. Shipping details are columns with the
-- maximum lengths of spec section 2 (and ours for the fields it does not list).
CREATE TABLE orders (
  uuid                      UUID PRIMARY KEY,
  team_code                 TEXT NOT NULL,
  channel_id                TEXT NOT NULL,
  origin                    TEXT NOT NULL CHECK (origin IN ('api', 'merchant-app', 'import')),
  order_number              TEXT NOT NULL CHECK (length(order_number) BETWEEN 1 AND 255),
  print_trail_order_number  TEXT NOT NULL CHECK (length(print_trail_order_number) BETWEEN 1 AND 255),
  status                    TEXT NOT NULL CHECK (status IN ('draft', 'queued', 'scheduled', 'processing', 'holding',
                              'back-order', 'complete', 'cancelled', 'returned', 'invalid', 'error', 'failed', 'partial')),
  fulfillable_status        TEXT NOT NULL DEFAULT 'fulfillable'
                              CHECK (fulfillable_status IN ('fulfillable', 'partially-fulfillable', 'not-fulfillable')),
  fulfillable_from          TIMESTAMPTZ(3) NOT NULL,
  scheduled_at              TIMESTAMPTZ(3),
  confirmed_at              TIMESTAMPTZ(3),
  -- Stock is held for the lines (reserve: true, or confirmed and not yet sent).
  stock_held                BOOLEAN NOT NULL DEFAULT false,
  -- The shipping method chosen at confirmation; amendments keep it.
  shipping_method_code      TEXT,
  shipping_method_name      TEXT,
  ship_first_name           VARCHAR(100),
  ship_last_name            VARCHAR(100),
  ship_company_name         VARCHAR(150),
  ship_address1             VARCHAR(250),
  ship_address2             VARCHAR(250),
  ship_address3             VARCHAR(250),
  ship_address4             VARCHAR(250),
  ship_city                 VARCHAR(100),
  ship_postal_code          VARCHAR(25),
  ship_state_name           VARCHAR(100),
  ship_state_code           VARCHAR(30),
  ship_country_name         VARCHAR(100),
  ship_country_code         VARCHAR(2),
  ship_email                VARCHAR(100),
  ship_phone                VARCHAR(50),
  created_at                TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at                TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  version                   INTEGER NOT NULL DEFAULT 1,
  CONSTRAINT orders_team_code_print_trail_order_number_key UNIQUE (team_code, print_trail_order_number)
);
-- Rule O2: an order number identifies an API order within its channel. Merchant-entered and
-- imported orders are not bound by it (they are invisible to the channel, rule O1).
CREATE UNIQUE INDEX orders_api_order_number ON orders (channel_id, order_number) WHERE origin = 'api';
-- Lists: a channel's API orders and a team's orders, newest first or by last change.
CREATE INDEX orders_channel_created_idx ON orders (channel_id, created_at DESC, uuid);
CREATE INDEX orders_channel_updated_idx ON orders (channel_id, updated_at, uuid);
CREATE INDEX orders_team_created_idx ON orders (team_code, created_at DESC, uuid);
CREATE INDEX orders_team_updated_idx ON orders (team_code, updated_at, uuid);

CREATE TABLE order_line (
  order_uuid    UUID NOT NULL REFERENCES orders (uuid) ON DELETE CASCADE,
  line_number   INTEGER NOT NULL CHECK (line_number > 0),
  sku           TEXT NOT NULL CHECK (length(sku) BETWEEN 1 AND 255),
  quantity      INTEGER NOT NULL CHECK (quantity > 0),
  -- The team's product with this SKU when the line was written; null when none matched.
  product_uuid  UUID,
  PRIMARY KEY (order_uuid, line_number)
);

-- A part of an order shipped from one supplier location. Rebuilt (new uuids) by amendments.
CREATE TABLE fulfilment (
  uuid                    UUID PRIMARY KEY,
  order_uuid              UUID NOT NULL REFERENCES orders (uuid) ON DELETE CASCADE,
  status                  TEXT NOT NULL CHECK (status IN ('draft', 'processing', 'back-order', 'dispatched', 'returned',
                            'invalid', 'cancelled', 'failed')),
  supplier_location_code  TEXT NOT NULL,
  supplier_country_code   TEXT NOT NULL,
  shipping_method_code    TEXT,
  shipping_method_name    TEXT,
  created_at              TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at              TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX fulfilment_order_uuid_idx ON fulfilment (order_uuid);

CREATE TABLE fulfilment_line (
  fulfilment_uuid  UUID NOT NULL REFERENCES fulfilment (uuid) ON DELETE CASCADE,
  line_number      INTEGER NOT NULL CHECK (line_number > 0),
  sku              TEXT NOT NULL,
  quantity         INTEGER NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (fulfilment_uuid, line_number)
);

CREATE TABLE tracking_detail (
  id               BIGSERIAL PRIMARY KEY,
  fulfilment_uuid  UUID NOT NULL REFERENCES fulfilment (uuid) ON DELETE CASCADE,
  carrier          TEXT CHECK (length(carrier) <= 255),
  tracking_number  TEXT CHECK (length(tracking_number) <= 255),
  tracking_url     TEXT CHECK (length(tracking_url) <= 2000),
  method_code      TEXT CHECK (length(method_code) <= 255),
  method_name      TEXT CHECK (length(method_name) <= 255),
  created_at       TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX tracking_detail_fulfilment_uuid_idx ON tracking_detail (fulfilment_uuid);

-- Every status change of an order: the history dashboards show and the confirmedAt backfill reads.
CREATE TABLE order_status_change (
  id           BIGSERIAL PRIMARY KEY,
  order_uuid   UUID NOT NULL REFERENCES orders (uuid) ON DELETE CASCADE,
  from_status  TEXT,
  to_status    TEXT NOT NULL,
  at           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  actor        TEXT NOT NULL,
  -- What caused it (confirm, countdown, reject-shipping-address, ...); null for history imported from elsewhere.
  trigger      TEXT,
  reason       TEXT
);
CREATE INDEX order_status_change_order_uuid_idx ON order_status_change (order_uuid, id);

-- Durable timers (principle 3): a queued order's countdown and a scheduled order's time. At most
-- one per order. Workers claim due rows with FOR UPDATE SKIP LOCKED and a lease (claimed_until),
-- so a restart or a second replica neither loses nor doubles a move.
CREATE TABLE order_timer (
  order_uuid     UUID PRIMARY KEY REFERENCES orders (uuid) ON DELETE CASCADE,
  kind           TEXT NOT NULL CHECK (kind IN ('countdown', 'schedule')),
  due_at         TIMESTAMPTZ(3) NOT NULL,
  claimed_by     TEXT,
  claimed_until  TIMESTAMPTZ(3),
  attempts       INTEGER NOT NULL DEFAULT 0,
  last_error     TEXT
);
CREATE INDEX order_timer_due_at_idx ON order_timer (due_at);
