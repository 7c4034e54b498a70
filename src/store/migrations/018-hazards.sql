-- Hazards every town shares (src/services/weather/hazards.ts): each provider's state between morning runs, and
-- what each town's editions already told.

-- One row per provider ('usgs', 'openfema'): the validators and items of its last good answer (a 304
-- reuses them), and its circuit breaker (consecutive failed runs, and no request before open_until).
CREATE TABLE hazard_sources (
  provider              TEXT PRIMARY KEY,
  etag                  TEXT,
  last_modified         TEXT,
  -- The parsed items of the last good answer (JSON array), and when it came.
  items_json            TEXT,
  fetched_at            TEXT,
  consecutive_failures  INTEGER NOT NULL DEFAULT 0,
  last_error            TEXT,
  -- ISO instant: the breaker is open (or Retry-After asked to wait) until then.
  open_until            TEXT
);

-- A felt quake or a new disaster declaration is news once in a town: the first date an edition told it.
CREATE TABLE town_hazards_told (
  place_geoid  TEXT NOT NULL REFERENCES places (geoid),
  item_key     TEXT NOT NULL,
  date         TEXT NOT NULL,
  PRIMARY KEY (place_geoid, item_key)
) WITHOUT ROWID;
