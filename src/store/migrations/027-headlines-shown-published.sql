-- A shown headline's own publication instant (ISO; null for an undated item). A dated item older than
-- a week is never offered again (HEADLINE_MAX_AGE_MS), so its row can be forgotten after a month
-- without reading any feed; an undated one is forgotten only once no feed of the town carries it
-- (forgetHeadlinesShown in src/store/sources/feeds.ts). Rows written before this column are treated as undated.
ALTER TABLE town_headlines_shown ADD COLUMN published_at TEXT;
