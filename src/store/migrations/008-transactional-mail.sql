-- Transactional mail through the same durable outbox: order and lease messages to an address that
-- need not be a subscriber (buyers, operators). SQLite cannot change a CHECK constraint, so the table
-- is rebuilt (nothing references it) with:
--   kind 'transactional', subscriber_id nullable for it, to_email + template + payload to render it,
--   and dedupe_key: unique, so each order event is queued exactly once however often it is applied.
CREATE TABLE outbox_new (
  id               INTEGER PRIMARY KEY,
  kind             TEXT NOT NULL CHECK (kind IN ('welcome', 'digest', 'transactional')),
  subscriber_id    INTEGER REFERENCES subscribers (id),
  edition_id       INTEGER REFERENCES editions (id),
  to_email         TEXT COLLATE NOCASE,
  template         TEXT,
  payload          TEXT,
  dedupe_key       TEXT,
  status           TEXT NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'cancelled')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER NOT NULL,
  lease_owner      TEXT,
  lease_until      INTEGER,
  last_error       TEXT,
  message_id       TEXT,
  created_at       TEXT NOT NULL,
  sent_at          TEXT,
  CHECK ((kind = 'transactional') = (subscriber_id IS NULL)),
  CHECK (kind <> 'transactional' OR (to_email IS NOT NULL AND template IS NOT NULL AND dedupe_key IS NOT NULL))
);
INSERT INTO outbox_new (id, kind, subscriber_id, edition_id, status, attempts, next_attempt_at, lease_owner, lease_until, last_error, message_id, created_at, sent_at)
  SELECT id, kind, subscriber_id, edition_id, status, attempts, next_attempt_at, lease_owner, lease_until, last_error, message_id, created_at, sent_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
CREATE UNIQUE INDEX outbox_once ON outbox (kind, subscriber_id, IFNULL(edition_id, 0)) WHERE subscriber_id IS NOT NULL;
CREATE UNIQUE INDEX outbox_transactional_once ON outbox (dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX outbox_leased ON outbox (lease_until) WHERE status = 'sending';
CREATE INDEX outbox_subscriber ON outbox (subscriber_id, status);
