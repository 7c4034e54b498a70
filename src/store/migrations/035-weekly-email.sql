-- The weekly email, for readers who chose "once a week" (migration 034): composed once per town and
-- day from the week's stored editions and what is coming (src/core/edition/weekly.ts), then queued
-- for each of the town's weekly readers of that weekday, at their own delivery minute.
--
-- Its own table rather than a 'weekly' outbox kind: the weekly is composed once and sent to many,
-- as an edition is, so it needs a row of its own whichever way the outbox names it; the outbox then
-- references it with one nullable column, added in place. A new kind would have meant rebuilding the
-- outbox (SQLite cannot change a CHECK constraint): copying the one table that only grows, under the
-- write lock at start-up, and every index on it. A weekly's outbox row is a 'digest' without an
-- edition, keyed `weekly:{weekly}:{subscriber}` (the unique dedupe key, as a welcome again is), so it
-- is queued once per reader; the sender reads it as a weekly (src/store/mail/outbox.ts).
CREATE TABLE weekly_editions (
  id           INTEGER PRIMARY KEY,
  place_geoid  TEXT NOT NULL REFERENCES places (geoid),
  date         TEXT NOT NULL,          -- the readers' day, YYYY-MM-DD in the town's timezone
  subject      TEXT NOT NULL,
  markdown     TEXT NOT NULL,
  html         TEXT NOT NULL,
  editions     TEXT NOT NULL,          -- JSON array of the dates of the daily editions it draws on
  created_at   TEXT NOT NULL,
  UNIQUE (place_geoid, date)
);
ALTER TABLE outbox ADD COLUMN weekly_id INTEGER REFERENCES weekly_editions (id);
-- Each morning run asks which towns have weekly readers on which weekday: the weekly readers alone.
CREATE INDEX subscribers_weekly ON subscribers (place_geoid, weekly_day) WHERE frequency = 'weekly' AND status = 'active';
