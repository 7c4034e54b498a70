import { cachedStatement as stmt, type DB } from "../db.ts";

/*
 * The rows of Fedify's message queue (src/services/fediverse/queue.ts listens on them): a task is due
 * at `run_at`, claimed by a worker until `claimed_until`, and deleted once handled. A task whose claim
 * lapsed (its worker crashed) is due again.
 */

export interface QueuedTask {
  id: number;
  message: string;
}

export function insertTasks(db: DB, messages: readonly string[], runAt: number, orderingKey: string | null): void {
  const insert = stmt(db, "INSERT INTO fediverse_queue (message, run_at, ordering_key) VALUES (?, ?, ?)");
  db.transaction(() => {
    for (const m of messages) insert.run(m, runAt, orderingKey);
  })();
}

/**
 * Claims up to `limit` due tasks until `claimUntil`, oldest first. A task with an ordering key waits
 * while another of the same key is claimed, so those run one at a time, in order.
 */
export function claimTasks(db: DB, limit: number, nowMs: number, claimUntil: number): QueuedTask[] {
  // An idle queue is asked twice a second: a read, so that asking takes no write lock.
  if (stmt(db, "SELECT EXISTS (SELECT 1 FROM fediverse_queue WHERE run_at <= ? AND claimed_until <= ?)").pluck().get(nowMs, nowMs) !== 1) return [];
  return stmt(db, `
    UPDATE fediverse_queue SET claimed_until = ?
    WHERE id IN (
      SELECT q.id FROM fediverse_queue q
      WHERE q.run_at <= ? AND q.claimed_until <= ?
        AND (q.ordering_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM fediverse_queue o WHERE o.ordering_key = q.ordering_key AND o.id < q.id))
      ORDER BY q.run_at, q.id LIMIT ?)
    RETURNING id, message`).all(claimUntil, nowMs, nowMs, limit) as QueuedTask[];
}

export function deleteTask(db: DB, id: number): void {
  stmt(db, "DELETE FROM fediverse_queue WHERE id = ?").run(id);
}

/** Tasks waiting (not claimed): due now, and due later (retries in backoff). */
export function queueDepth(db: DB, nowMs: number): { queued: number; ready: number; delayed: number } {
  const r = stmt(db, `SELECT count(*) AS queued, coalesce(sum(run_at <= ?), 0) AS ready FROM fediverse_queue WHERE claimed_until <= ?`).get(nowMs, nowMs) as { queued: number; ready: number };
  return { queued: r.queued, ready: r.ready, delayed: r.queued - r.ready };
}
