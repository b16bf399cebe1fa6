-- The webhooks service: read models of accounts and orders, each channel's registration and
-- signing secret, the durable delivery queue with its attempt log, and the stock batching windows.
-- prisma/schema.prisma describes these tables; the drift test fails when the two disagree.
-- CHECK constraints, partial indexes and the queue's NOTIFY trigger live only here.

-- Read model of accounts' teams (team.* events): registration refuses an inactive team.
CREATE TABLE team (
  team_code   TEXT PRIMARY KEY,
  active      BOOLEAN NOT NULL,
  updated_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- Read model of accounts' channels (channel.* events): no NEW webhooks to an inactive channel,
-- none ever to a Standard channel.
CREATE TABLE channel (
  channel_id    TEXT PRIMARY KEY,
  team_code     TEXT NOT NULL,
  channel_code  TEXT NOT NULL,
  active        BOOLEAN NOT NULL,
  standard      BOOLEAN NOT NULL,
  updated_at    TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX channel_team_code_idx ON channel (team_code);

-- A channel's webhook registration. The secret is stored only sealed (AES-256-GCM, key id kept
-- for key rotation); `secret_version` counts rotations. `url` is null while a secret exists
-- without a registered URL (rotated before registering).
CREATE TABLE endpoint (
  channel_id         TEXT PRIMARY KEY,
  team_code          TEXT NOT NULL,
  channel_code       TEXT NOT NULL,
  url                TEXT CHECK (url IS NULL OR length(url) <= 2048),
  secret_sealed      TEXT NOT NULL,
  secret_key_id      TEXT NOT NULL,
  secret_version     INTEGER NOT NULL DEFAULT 1 CHECK (secret_version >= 1),
  secret_created_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  registered_at      TIMESTAMPTZ(3),
  created_at         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at         TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX endpoint_team_code_idx ON endpoint (team_code);

-- Read model of orders (order.* and fulfilment.* events): what resend needs for rule O1 and for
-- a payload of the order's current state, without calling the orders service.
CREATE TABLE order_view (
  order_uuid          UUID PRIMARY KEY,
  team_code           TEXT NOT NULL,
  channel_id          TEXT NOT NULL,
  channel_code        TEXT NOT NULL,
  origin              TEXT NOT NULL CHECK (origin IN ('api', 'merchant-app', 'import')),
  order_number        TEXT NOT NULL,
  status              TEXT NOT NULL,
  fulfillable_status  TEXT NOT NULL,
  created_at          TIMESTAMPTZ(3) NOT NULL,
  updated_at          TIMESTAMPTZ(3) NOT NULL,
  confirmed_at        TIMESTAMPTZ(3)
);

-- One webhook to one channel. The body is serialised and signed once, when queued; every
-- attempt sends these bytes with this signature. `next_attempt_at` is when a pending delivery is
-- due, or when the lease of a delivery being sent runs out (then another worker may take it).
CREATE TABLE delivery (
  id                 UUID PRIMARY KEY,
  channel_id         TEXT NOT NULL,
  team_code          TEXT NOT NULL,
  notification_type  TEXT NOT NULL,
  order_uuid         UUID,
  origin             TEXT NOT NULL CHECK (origin IN ('event', 'resend', 'redelivery')),
  source_event_id    UUID,
  redelivery_of      UUID REFERENCES delivery (id),
  body               BYTEA NOT NULL,
  signature          TEXT NOT NULL CHECK (signature ~ '^[0-9a-f]{64}$'),
  secret_version     INTEGER NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'succeeded', 'failed')),
  attempt_count      INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  next_attempt_at    TIMESTAMPTZ(3),
  lease_token        UUID,
  last_status_code   INTEGER,
  last_error         TEXT,
  created_at         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  completed_at       TIMESTAMPTZ(3),
  CONSTRAINT delivery_due_while_open CHECK ((status IN ('pending', 'sending')) = (next_attempt_at IS NOT NULL))
);
-- One delivery per channel per source event, whatever the consumer's inbox says.
CREATE UNIQUE INDEX delivery_source_event_channel_key ON delivery (source_event_id, channel_id) WHERE source_event_id IS NOT NULL;
-- What the workers claim: open deliveries by due time.
CREATE INDEX delivery_due_idx ON delivery (next_attempt_at) WHERE status IN ('pending', 'sending');
-- The delivery log of a channel, newest first.
CREATE INDEX delivery_channel_created_idx ON delivery (channel_id, created_at DESC, id DESC);

-- Wakes the delivery workers (LISTEN pf_webhooks_delivery) when a transaction queues deliveries.
CREATE FUNCTION notify_delivery_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pf_webhooks_delivery', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER delivery_queued AFTER INSERT ON delivery FOR EACH STATEMENT EXECUTE FUNCTION notify_delivery_queued();

-- The attempt log: one row per attempt, with what came back and what happens next.
CREATE TABLE delivery_attempt (
  id               BIGSERIAL PRIMARY KEY,
  delivery_id      UUID NOT NULL REFERENCES delivery (id) ON DELETE CASCADE,
  attempt_number   INTEGER NOT NULL CHECK (attempt_number >= 1),
  started_at       TIMESTAMPTZ(3) NOT NULL,
  duration_ms      INTEGER NOT NULL CHECK (duration_ms >= 0),
  url              TEXT,
  outcome          TEXT NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'refused')),
  status_code      INTEGER,
  error            TEXT,
  next_attempt_at  TIMESTAMPTZ(3)
);
CREATE INDEX delivery_attempt_delivery_id_idx ON delivery_attempt (delivery_id, attempt_number);

-- Stock batching: the first change of a team opens a window due `WEBHOOK_STOCK_WINDOW_SECONDS`
-- later; changes until it closes join it. A closing window is leased like a delivery.
CREATE TABLE stock_window (
  id               UUID PRIMARY KEY,
  team_code        TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('open', 'closing')),
  opened_at        TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  due_at           TIMESTAMPTZ(3) NOT NULL,
  last_changed_at  TIMESTAMPTZ(3) NOT NULL,
  lease_token      UUID,
  lease_until      TIMESTAMPTZ(3),
  close_attempts   INTEGER NOT NULL DEFAULT 0,
  last_error       TEXT
);
-- At most one open window per team; a closing one does not block the next.
CREATE UNIQUE INDEX stock_window_one_open_per_team ON stock_window (team_code) WHERE status = 'open';
CREATE INDEX stock_window_due_idx ON stock_window (due_at);

CREATE TABLE stock_window_product (
  window_id     UUID NOT NULL REFERENCES stock_window (id) ON DELETE CASCADE,
  product_uuid  UUID NOT NULL,
  sku           TEXT,
  changed_at    TIMESTAMPTZ(3) NOT NULL,
  PRIMARY KEY (window_id, product_uuid)
);
