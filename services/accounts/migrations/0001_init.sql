-- Teams, channels and channel API tokens. prisma/schema.prisma describes these tables; the drift
-- test fails when the two disagree. Constraints Prisma cannot express (CHECKs, partial unique
-- indexes) are here only, and they are the last line of defence behind the domain rules.

CREATE TABLE team (
  code        TEXT PRIMARY KEY
              -- No hyphen: it separates the team code from the channel code in a channel id.
              CHECK (code ~ '^[a-z0-9]{2,32}$'),
  name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  active      BOOLEAN NOT NULL DEFAULT true,
  created_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE channel (
  id          TEXT PRIMARY KEY,
  team_code   TEXT NOT NULL REFERENCES team (code),
  code        TEXT NOT NULL CHECK (code ~ '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$' AND length(code) >= 2),
  name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  active      BOOLEAN NOT NULL DEFAULT true,
  standard    BOOLEAN NOT NULL DEFAULT false,
  created_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  updated_at  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT channel_id_is_team_and_code CHECK (id = team_code || '-' || code),
  CONSTRAINT channel_team_code_code_key UNIQUE (team_code, code)
);

-- One Standard channel per team (created with the team, in the same transaction).
CREATE UNIQUE INDEX channel_one_standard_per_team ON channel (team_code) WHERE standard;

CREATE TABLE api_token (
  id            UUID PRIMARY KEY,
  channel_id    TEXT NOT NULL REFERENCES channel (id),
  -- Only the SHA-256 of the token is stored; the token itself is shown once, when issued.
  token_sha256  TEXT NOT NULL CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  prefix        TEXT NOT NULL,
  created_at    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  revoked_at    TIMESTAMPTZ(3),
  CONSTRAINT api_token_token_sha256_key UNIQUE (token_sha256)
);

CREATE INDEX api_token_channel_id_idx ON api_token (channel_id);
-- At most one live token per channel: two concurrent issues cannot both leave theirs unrevoked.
CREATE UNIQUE INDEX api_token_one_live_per_channel ON api_token (channel_id) WHERE revoked_at IS NULL;
