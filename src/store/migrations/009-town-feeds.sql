-- The towns' public feeds (iCalendar calendars, RSS and Atom news) and what the editions showed from them.

-- One row per distinct feed address: fetched once a morning however many towns use it. The fetch
-- state (validators, failures) and the last good items live here, shared by those towns.
CREATE TABLE feed_sources (
  id                    INTEGER PRIMARY KEY,
  url                   TEXT NOT NULL UNIQUE,
  kind                  TEXT NOT NULL CHECK (kind IN ('ical', 'rss', 'atom', 'rdf', 'json')),
  title                 TEXT,                       -- the feed's own name (X-WR-CALNAME, channel title)
  checked_at            TEXT,                       -- last fetch attempt (ISO instant)
  status                TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failing')),
  last_error            TEXT,                       -- why the last attempt failed; null after a good one
  consecutive_failures  INTEGER NOT NULL DEFAULT 0,
  etag                  TEXT,
  last_modified         TEXT,
  items_json            TEXT NOT NULL DEFAULT '[]', -- the last good items (calendar occurrences or headlines)
  items_fetched_at      TEXT,                       -- when they were last confirmed good (a 200 or a 304)
  body                  TEXT,                       -- calendars: the last good text, expanded again over a later window on a 304
  created_at            TEXT NOT NULL
);

-- A feed of a town: who added it and under what name. Removing the last town's row of a source
-- removes the source (src/store/sources/feeds.ts).
CREATE TABLE town_feeds (
  id           INTEGER PRIMARY KEY,
  place_geoid  TEXT NOT NULL REFERENCES places (geoid),
  source_id    INTEGER NOT NULL REFERENCES feed_sources (id),
  title        TEXT NOT NULL,                       -- the outlet or calendar name readers see
  added_by     TEXT NOT NULL,                       -- 'staff' or the operator's email
  created_at   TEXT NOT NULL,
  UNIQUE (place_geoid, source_id)
);
CREATE INDEX town_feeds_source ON town_feeds (source_id);

-- Headlines shown in a town's edition: an item is never shown in a later edition of that town.
-- `date` is the edition's (first) date; a re-run of the same date may show it again.
CREATE TABLE town_headlines_shown (
  place_geoid  TEXT NOT NULL REFERENCES places (geoid),
  item_key     TEXT NOT NULL,
  date         TEXT NOT NULL,
  PRIMARY KEY (place_geoid, item_key)
) WITHOUT ROWID;
