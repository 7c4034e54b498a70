-- The morning's run snapshot (src/services/sources/run-sources.ts): what each outside source answered, at its
-- own grain, kept so a run that crashed and is run again does not fetch it again, and so conditional
-- requests have their validators; and each town's NWS zones, looked up once (they do not change).

CREATE TABLE source_answers (
  source         TEXT NOT NULL,   -- 'forecast', 'air-quality', 'nws-alerts'
  key            TEXT NOT NULL,   -- the grain: a grid cell and timezone ('40.7,-74|America/New_York'), 'us' for national alerts
  fetched_at     TEXT NOT NULL,   -- ISO, on the app clock (NOW pins it)
  body           TEXT NOT NULL,   -- JSON of the parsed answer
  etag           TEXT,
  last_modified  TEXT,
  PRIMARY KEY (source, key)
) WITHOUT ROWID;

-- A town's NWS forecast zone, fire-weather zone and county (UGC codes), from /points/{lat},{lon}.
CREATE TABLE place_zones (
  place_geoid    TEXT PRIMARY KEY REFERENCES places (geoid),
  forecast_zone  TEXT,
  fire_zone      TEXT,
  county_zone    TEXT,
  looked_up_at   TEXT NOT NULL
) WITHOUT ROWID;

-- Composing 32,000 towns in one morning: the census fact of each town (src/services/places/fact-of-day.ts)
-- asks the places table for the nearest larger place, its ranks in state and county, and the state's
-- density. Without these each of those scanned most of the table (the nearest-larger box walked every
-- larger place by population), which made composing grow with the square of the towns.
CREATE INDEX places_latitude ON places (latitude, longitude, population, name, state_name);
CREATE INDEX places_state_county_population ON places (state_name, county_name, population);
CREATE INDEX places_state_density ON places (state_name, population, land_area_sq_mi);
-- The state capital of every town's fact (findPlaceByName): by name or census name, case-insensitive.
CREATE INDEX places_state_name_nocase ON places (state_name, name COLLATE NOCASE);
CREATE INDEX places_state_census_name_nocase ON places (state_name, census_name COLLATE NOCASE);
