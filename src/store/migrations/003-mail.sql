-- Email delivery: suppression list, mail history, the durable outbox and the "first digest owed" marker.

-- Addresses that must never receive mail again (unsubscribed from everything, hard bounce, complaint,
-- suppressed by staff). One row per address; the history of how it got there is in mail_events.
CREATE TABLE suppressions (
  email       TEXT PRIMARY KEY COLLATE NOCASE,
  reason      TEXT NOT NULL CHECK (reason IN ('unsubscribed', 'bounced', 'complained', 'manual')),
  source      TEXT NOT NULL,          -- one-click, confirmation page, manage page, smtp, webhook, admin
  detail      TEXT,
  created_at  TEXT NOT NULL
);

-- Append-only history of what happened to an address; suppressing never deletes anything.
CREATE TABLE mail_events (
  id             INTEGER PRIMARY KEY,
  email          TEXT NOT NULL COLLATE NOCASE,
  subscriber_id  INTEGER REFERENCES subscribers (id),
  kind           TEXT NOT NULL,       -- subscribed, unsubscribed, unsubscribed_all, bounced, soft_bounce, complained, suppressed
  source         TEXT NOT NULL,
  detail         TEXT,
  created_at     TEXT NOT NULL
);
CREATE INDEX mail_events_email ON mail_events (email, id);

-- Set when a subscriber joined before their city's edition of the day existed: the next edition
-- queued for the city (queueEditionDigests) is their first digest, and clears it.
ALTER TABLE subscribers ADD COLUMN first_digest_pending INTEGER NOT NULL DEFAULT 0;

-- The outbox: one row per message to deliver. The unique key (kind, subscriber, edition) makes
-- "each subscriber gets an edition once" structural: queueing twice inserts nothing. Senders claim
-- rows with a lease (lease_owner, lease_until) so two senders never hold the same row; a sender that
-- dies leaves a lease that expires and the row is claimed again.
CREATE TABLE outbox (
  id               INTEGER PRIMARY KEY,
  kind             TEXT NOT NULL CHECK (kind IN ('welcome', 'digest')),
  subscriber_id    INTEGER NOT NULL REFERENCES subscribers (id),
  edition_id       INTEGER REFERENCES editions (id),     -- digests only
  status           TEXT NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'cancelled')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER NOT NULL,                     -- epoch ms; backoff after temporary failures
  lease_owner      TEXT,
  lease_until      INTEGER,                              -- epoch ms
  last_error       TEXT,
  message_id       TEXT,                                 -- as accepted by the transport
  created_at       TEXT NOT NULL,
  sent_at          TEXT
);
CREATE UNIQUE INDEX outbox_once ON outbox (kind, subscriber_id, IFNULL(edition_id, 0));
-- Claiming scans only unfinished rows.
CREATE INDEX outbox_due ON outbox (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX outbox_leased ON outbox (lease_until) WHERE status = 'sending';
CREATE INDEX outbox_subscriber ON outbox (subscriber_id, status);
