-- What the mail providers' signed webhooks (src/integrations/mail/) have already delivered, so a
-- replayed request changes nothing: 'nonce' rows are one-use values a signature covers (Mailgun's
-- token, a SendGrid signature), refused when seen again; 'event' rows are the providers' event ids
-- (an SNS MessageId, Postmark's bounce ID), applied once and answered as duplicates after. Rows older
-- than two days are pruned: every signature older than its tolerance is refused anyway.
CREATE TABLE mail_webhook_seen (
  provider  TEXT NOT NULL,               -- ses, sendgrid, postmark, mailgun, arf
  kind      TEXT NOT NULL CHECK (kind IN ('nonce', 'event')),
  id        TEXT NOT NULL,
  seen_at   INTEGER NOT NULL,            -- epoch ms
  PRIMARY KEY (provider, kind, id)
) WITHOUT ROWID;
CREATE INDEX mail_webhook_seen_age ON mail_webhook_seen (seen_at);
