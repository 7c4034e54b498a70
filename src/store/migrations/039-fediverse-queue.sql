-- Fedify's key-value store and message queue, on this database (src/store/fediverse/kv.ts, queue.ts).

-- Keys are JSON arrays of strings (Fedify's KvKey), values JSON; `expires_at` (epoch ms) for a TTL.
CREATE TABLE fediverse_kv (
  key         TEXT PRIMARY KEY,
  value       TEXT NOT NULL,
  expires_at  INTEGER
);

-- Delivery tasks (fan-outs to a town's followers, and one delivery to one inbox each), due at `run_at`
-- (epoch ms; retries come back later with backoff). A worker claims a task until `claimed_until`;
-- a crashed worker's claim lapses and the task is taken again.
CREATE TABLE fediverse_queue (
  id             INTEGER PRIMARY KEY,
  message        TEXT NOT NULL,
  run_at         INTEGER NOT NULL,
  claimed_until  INTEGER NOT NULL DEFAULT 0,
  ordering_key   TEXT
);
CREATE INDEX fediverse_queue_due ON fediverse_queue (run_at);
CREATE INDEX fediverse_queue_ordering ON fediverse_queue (ordering_key, id) WHERE ordering_key IS NOT NULL;
