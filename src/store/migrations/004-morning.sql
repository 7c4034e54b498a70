-- The morning pipeline's publishing ledger. An edition and its row here are written in one
-- transaction; the two steps after it (site render, digest queueing) stamp their column when done,
-- so a run that crashed midway leaves NULLs that the next run picks up and finishes.
CREATE TABLE edition_publish (
  edition_id         INTEGER PRIMARY KEY REFERENCES editions (id),
  site_published_at  TEXT,      -- ISO instant the static pages including this edition were written
  digests_queued_at  TEXT       -- ISO instant its digests were put in the outbox
);
-- Only unfinished work is ever scanned, so each run costs what changed, not the archive's size.
CREATE INDEX edition_publish_pending ON edition_publish (edition_id)
  WHERE site_published_at IS NULL OR digests_queued_at IS NULL;
