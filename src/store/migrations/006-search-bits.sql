-- Kept sets of matching editions for frequent search terms, so that the exact `total` of a search
-- is a few bitmap operations instead of a walk over posting lists as long as the archive
-- (src/store/search/bits.ts). A key is an FTS5 term expression (`"rain"`, `"partly cloudy"`,
-- `"sp"*`) and its set is exactly the editions FTS5 matches for it, up to the edition id in meta
-- `search_bits_upto`; newer editions are matched through FTS5 at query time until the sets are
-- brought up to date after a morning.
CREATE TABLE search_keys (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE
);

-- One bitmap of 2^14 edition ids per key and chunk: rowid = key id * 2^20 + chunk (edition id >> 14),
-- so a key's chunks are one rowid range.
CREATE TABLE search_bits (
  id INTEGER PRIMARY KEY,
  bits BLOB NOT NULL
);

INSERT INTO meta (key, value) VALUES ('search_bits_upto', '0');

-- An edition deleted or edited outside insertEdition: the sets are only trusted below it, and the
-- next refresh rebuilds them from there.
CREATE TRIGGER editions_search_bits_delete AFTER DELETE ON editions BEGIN
  UPDATE meta SET value = MIN(CAST(value AS INTEGER), old.id - 1) WHERE key = 'search_bits_upto';
END;
CREATE TRIGGER editions_search_bits_update AFTER UPDATE OF subject, markdown, place_geoid ON editions BEGIN
  UPDATE meta SET value = MIN(CAST(value AS INTEGER), old.id - 1) WHERE key = 'search_bits_upto';
END;
