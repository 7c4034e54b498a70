-- The morning looks for shown headlines older than a month on every run (every 15 minutes,
-- forgetHeadlinesShown in src/store/sources/feeds.ts): by date, not by a scan of every town's rows.
CREATE INDEX town_headlines_shown_date ON town_headlines_shown (date);
