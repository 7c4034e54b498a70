import type { DB } from "./db.ts";

/**
 * Durable writes at the rate of many. The database runs in WAL mode with `synchronous = NORMAL`: a
 * commit survives a crash of the process but not of the machine (power loss can undo the last ones).
 * A write whose answer promises it is stored (a subscription) must survive both, which takes an
 * fsync per commit (`synchronous = FULL`: about 500 commits a second on this machine's disk). So the
 * writes queued in one turn of the event loop run together in one transaction, each in its own
 * savepoint (one that throws undoes only itself), committed once with `FULL`; each caller's promise
 * settles after that commit. Under load a turn carries many writes and one fsync pays for all.
 */
export interface GroupCommit {
  /** Runs `write` in the next group transaction; resolves with its value once it is on disk. */
  run<T>(write: () => T): Promise<T>;
}

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createGroupCommit(db: DB): GroupCommit {
  let queue: Pending[] = [];

  function flush(): void {
    const batch = queue;
    queue = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      // The safety level can only change outside a transaction.
      db.pragma("synchronous = FULL");
      db.transaction(() => {
        for (const { write } of batch) {
          try {
            // Nested: a savepoint, so a write that throws is undone alone.
            outcomes.push({ ok: true, value: db.transaction(write)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      // The commit itself failed (disk full, I/O error), or a write's SQLITE_FULL or I/O error made
      // SQLite roll the whole transaction back (the commit then finds none): nothing of the batch is
      // stored, and every caller learns that cause, not "no transaction is active".
      const fatal = outcomes.find((o) => !o.ok && /^SQLITE_(FULL|IOERR)/.test(String((o.error as { code?: unknown }).code)));
      for (const p of batch) p.reject(fatal && !fatal.ok ? fatal.error : error);
      return;
    } finally {
      if (db.open) db.pragma("synchronous = NORMAL");
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.error);
    });
  }

  return {
    run<T>(write: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (queue.length === 0) setImmediate(flush);
        queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      });
    },
  };
}
