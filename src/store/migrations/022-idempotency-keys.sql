-- Idempotency-Key (HTTP header) and `idempotencyKey` (MCP argument) on the operations that create
-- something (src/services/operations/run-once.ts). A row is claimed before the operation runs, so a second
-- request with the same key cannot create a second thing; it holds the first answer for replays.
CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,            -- the operation id (callers are anonymous: no account to scope by)
  idem_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,     -- sha256 of the canonical JSON of the validated input
  state TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
  status INTEGER,                 -- the stored answer (done): HTTP status and JSON body
  response_json TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (scope, idem_key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
