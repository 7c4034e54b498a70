-- Places (imported from content/data/us-places.csv), subscribers and editions.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE places (
  geoid                    TEXT PRIMARY KEY,
  slug                     TEXT NOT NULL UNIQUE,
  name                     TEXT NOT NULL,
  census_name              TEXT NOT NULL,
  place_type               TEXT NOT NULL,
  func_stat                TEXT NOT NULL,
  state_name               TEXT NOT NULL,
  state_code               TEXT NOT NULL,
  state_fips               TEXT NOT NULL,
  county_geoid             TEXT,
  county_name              TEXT,
  latitude                 REAL NOT NULL,
  longitude                REAL NOT NULL,
  timezone                 TEXT NOT NULL,
  population               INTEGER,
  housing_units            INTEGER,
  acs_year                 TEXT,    -- vintage of population and housing units
  median_income            INTEGER,
  median_home_value        INTEGER,
  median_rent              INTEGER,
  owner_occupied           INTEGER,
  renter_occupied          INTEGER,
  college_degree_percent   REAL,
  avg_commute_minutes      REAL,
  work_from_home_percent   REAL,
  walk_bike_transit_percent REAL,
  median_age               REAL,
  over65_percent           REAL,
  vacancy_rate             REAL,
  acs_detail_year          TEXT,    -- vintage of the other ACS fields (set by `npm run census:import`)
  land_area_sq_mi          REAL,
  name_ambiguous_in_state  INTEGER NOT NULL DEFAULT 1,
  geography_status         TEXT,
  data_note                TEXT
);
CREATE INDEX places_state_population ON places (state_name, population DESC);
CREATE INDEX places_population ON places (population DESC);

CREATE TABLE subscribers (
  id            INTEGER PRIMARY KEY,
  email         TEXT NOT NULL COLLATE NOCASE,
  place_geoid   TEXT NOT NULL REFERENCES places (geoid),
  status        TEXT NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'unsubscribed', 'bounced', 'complained')),
  referrer      TEXT,
  utm_source    TEXT,
  utm_medium    TEXT,
  utm_campaign  TEXT,
  landing_path  TEXT,
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  UNIQUE (email, place_geoid)
);
CREATE INDEX subscribers_status_place ON subscribers (status, place_geoid);
CREATE INDEX subscribers_place_status ON subscribers (place_geoid, status);

CREATE TABLE editions (
  id            INTEGER PRIMARY KEY,
  place_geoid   TEXT NOT NULL REFERENCES places (geoid),
  date          TEXT NOT NULL,          -- YYYY-MM-DD in the city's own timezone
  subject       TEXT NOT NULL,
  markdown      TEXT NOT NULL,
  html          TEXT NOT NULL,
  weather_json  TEXT,                   -- the forecast snapshot served by /api/weather for that day
  published_at  TEXT NOT NULL,          -- ISO instant
  UNIQUE (place_geoid, date)
);
CREATE INDEX editions_published_at ON editions (published_at DESC);
