-- Directory sources (#27): a verified candidate (town_source_candidates) becomes a town feed
-- (town_feeds, added_by 'directory') with its provenance and when it was last verified; staff block
-- a source or a whole host everywhere; an operator removes one from their town (and may restore it).

-- Provenance of a directory feed: the candidate it came from, whether it is county-wide (its items
-- must name the town to be shown), the outlet's home page (credited with a link), and when it last
-- passed verification (dropped after failing for a week: src/services/directory/verify.ts).
ALTER TABLE town_feeds ADD COLUMN candidate_id INTEGER REFERENCES town_source_candidates (id);
ALTER TABLE town_feeds ADD COLUMN scope TEXT NOT NULL DEFAULT 'town' CHECK (scope IN ('town', 'county'));
ALTER TABLE town_feeds ADD COLUMN home_url TEXT;
ALTER TABLE town_feeds ADD COLUMN verified_at TEXT;

-- Staff blocks, everywhere: 'host' (every address on that host name) or 'source' (one feed address,
-- or one candidate home page). Verification never adds a blocked address, and blocking removes the
-- directory feeds it covers.
CREATE TABLE directory_blocks (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('host', 'source')),
  value       TEXT NOT NULL,            -- a lower-case host name, or an absolute URL
  reason      TEXT,
  created_at  TEXT NOT NULL,
  UNIQUE (kind, value)
);

-- A directory feed an operator removed from their town: the re-check never adds it back; restoring
-- deletes the row (and verifies the source again).
CREATE TABLE directory_removals (
  place_geoid  TEXT NOT NULL REFERENCES places (geoid),
  url          TEXT NOT NULL,           -- the feed address removed
  title        TEXT NOT NULL,           -- its name then (the desk lists it for restoring)
  candidate_id INTEGER REFERENCES town_source_candidates (id),
  removed_by   TEXT NOT NULL,           -- the operator's email, or 'staff'
  removed_at   TEXT NOT NULL,
  PRIMARY KEY (place_geoid, url)
) WITHOUT ROWID;
