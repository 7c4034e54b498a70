-- Full-text index of editions for /api/search. One row per edition, rowid = editions.id, written by
-- insertEdition in the same transaction as the edition (src/store/morning/editions.ts), so a reader never
-- sees an edition without its index row or the reverse. `body` is the edition's plain text (markdown
-- syntax and link targets dropped, see src/core/search/text.ts); `place` holds one token per city
-- (`p` + GEOID) so a city-restricted search intersects with that city's short posting list.
-- The prefix indexes make `ab*`, `abc*` and `abcd*` read one posting list instead of merging many.
CREATE VIRTUAL TABLE edition_search USING fts5(
  subject,
  body,
  place,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3 4'
);

-- Keep the index in step with deletes and edits made outside insertEdition. An edited edition is
-- re-indexed from its raw markdown (no markdown parser in SQL), which still finds its words.
-- Both bump `search_generation`, which drops the remembered totals (src/store/search/queries.ts): those are
-- only extended by newer rowids, which is exact while editions are only ever added.
CREATE TRIGGER editions_search_delete AFTER DELETE ON editions BEGIN
  DELETE FROM edition_search WHERE rowid = old.id;
  INSERT INTO meta (key, value) VALUES ('search_generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER editions_search_update AFTER UPDATE OF subject, markdown, place_geoid ON editions BEGIN
  DELETE FROM edition_search WHERE rowid = old.id;
  INSERT INTO edition_search (rowid, subject, body, place) VALUES (new.id, new.subject, new.markdown, 'p' || new.place_geoid);
  INSERT INTO meta (key, value) VALUES ('search_generation', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

-- Editions stored before this migration.
INSERT INTO edition_search (rowid, subject, body, place)
  SELECT id, subject, markdown, 'p' || place_geoid FROM editions;

-- Per-term document counts (read by the exact `total` of one-word searches without a full count).
CREATE VIRTUAL TABLE edition_search_terms USING fts5vocab(edition_search, row);
