-- The town directory: candidate public sources of each place, imported from the open datasets under
-- content/data/sources (src/services/directory/import.ts), before anything is fetched. A candidate
-- becomes a town feed (town_feeds, added_by 'directory') only once verified (src/services/directory/verify.ts).

CREATE TABLE town_source_candidates (
  id             INTEGER PRIMARY KEY,
  place_geoid    TEXT NOT NULL REFERENCES places (geoid),
  -- 'government': the place's official website; 'gov_domain': a .gov domain held by the place's (or
  -- its county's) government; 'news': a local news outlet; 'civic': a civic platform (CivicPlus, Legistar).
  kind           TEXT NOT NULL CHECK (kind IN ('government', 'gov_domain', 'news', 'civic')),
  -- 'town': about the place itself; 'county': county-wide (its items must name the town to be shown).
  scope          TEXT NOT NULL CHECK (scope IN ('town', 'county')),
  name           TEXT NOT NULL,            -- the outlet's or organisation's name ("The Ely Times", "City of Ely")
  url            TEXT NOT NULL,            -- the site's home page (absolute http(s) URL)
  feed_urls      TEXT NOT NULL DEFAULT '[]', -- JSON array of recorded feed URLs, absolute, comment feeds dropped
  platform       TEXT CHECK (platform IN ('civicplus', 'legistar', 'wordpress')),
  platform_id    TEXT,                     -- Legistar: the client name ('kpb'); CivicPlus: the host
  dataset        TEXT NOT NULL,            -- the file it came from ('city-websites-uscityurl-2022.csv')
  dataset_row    TEXT NOT NULL,            -- which row: its key or line number in that file
  imported_at    TEXT NOT NULL,
  -- Verification (src/services/directory/verify.ts): when last tried, and the outcome.
  checked_at     TEXT,
  check_status   TEXT CHECK (check_status IN ('verified', 'no_feed', 'stale', 'failed', 'refused', 'blocked')),
  check_detail   TEXT,
  UNIQUE (place_geoid, kind, url)
);
CREATE INDEX town_source_candidates_place ON town_source_candidates (place_geoid);
