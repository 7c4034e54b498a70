-- Clicks on an edition's outbound links (through /go/...), counted per link per edition per day in
-- aggregate: nothing here says who clicked (no address, agent, cookie or reader id is stored).
CREATE TABLE link_clicks (
  place_geoid   TEXT NOT NULL REFERENCES places (geoid),
  edition_date  TEXT NOT NULL,            -- the edition the link was in
  url           TEXT NOT NULL,            -- where it led
  day           TEXT NOT NULL,            -- the town's local date of the clicks
  clicks        INTEGER NOT NULL,
  PRIMARY KEY (place_geoid, edition_date, url, day)
) WITHOUT ROWID;
CREATE INDEX link_clicks_url ON link_clicks (place_geoid, url);
