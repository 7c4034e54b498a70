-- Subscribing an address that is suppressed (it unsubscribed from everything, bounced or complained)
-- changes nothing until its owner confirms (src/services/readers/resubscribe.ts): each row is one
-- emailed confirmation link, at most one a day per address. The link carries a random token; only
-- its sha256 is kept here.
CREATE TABLE resubscribe_requests (
  token_hash   TEXT PRIMARY KEY,
  email        TEXT NOT NULL COLLATE NOCASE,
  place_geoid  TEXT NOT NULL REFERENCES places (geoid),
  created_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL,
  used_at      TEXT
) WITHOUT ROWID;
CREATE INDEX resubscribe_requests_by_email ON resubscribe_requests (email, created_at);
