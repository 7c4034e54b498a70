-- What each reader chose for each town they get (one row per address and town): every morning or
-- once a week on a day of the week (0 = Sunday, in the town's own time zone); the minute after the
-- town's local midnight their email goes out (5:00 to 9:00 AM, in steps of 30, 6:00 by default);
-- and the sections of the edition they do not want, as comma-separated keys (src/contract/preferences.ts).
-- The defaults are what every reader got before they could choose.
ALTER TABLE subscribers ADD COLUMN frequency TEXT NOT NULL DEFAULT 'daily'
  CHECK (frequency IN ('daily', 'weekly'));
ALTER TABLE subscribers ADD COLUMN weekly_day INTEGER NOT NULL DEFAULT 6
  CHECK (weekly_day BETWEEN 0 AND 6);
ALTER TABLE subscribers ADD COLUMN delivery_minute INTEGER NOT NULL DEFAULT 360
  CHECK (delivery_minute BETWEEN 300 AND 540);
ALTER TABLE subscribers ADD COLUMN hidden_sections TEXT NOT NULL DEFAULT '';
