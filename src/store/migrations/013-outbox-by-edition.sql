-- The operator desk counts each recent edition's digests (sent and queued). Without this, every
-- count scanned the whole outbox, which only grows. On edition_id alone (not status), so the sender
-- marking a message sent never rewrites this index.
CREATE INDEX outbox_edition ON outbox (edition_id) WHERE kind = 'digest';
