-- Transactional outbox: a state change and its events commit in one transaction; the relay
-- publishes rows in seq order and marks them published.
CREATE TABLE outbox_event (
  seq           BIGSERIAL PRIMARY KEY,
  id            UUID NOT NULL UNIQUE,
  topic         TEXT NOT NULL,
  event_key     TEXT NOT NULL,
  envelope      JSONB NOT NULL,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  published_at  TIMESTAMPTZ
);
CREATE INDEX outbox_event_unpublished ON outbox_event (seq) WHERE published_at IS NULL;

-- Inbox: one row per (consumer, event) processed, written in the consumer's transaction, so a
-- redelivered event changes nothing.
CREATE TABLE inbox_event (
  consumer      TEXT NOT NULL,
  event_id      UUID NOT NULL,
  processed_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
