import fs from "node:fs";
import { fileReplicaLastMoved, s3ReplicaLastMoved, type S3ReplicaCursor } from "../../integrations/backup/litestream.ts";
import { connectionCache, databaseFile } from "../../store/db.ts";
import type { AppContext } from "./context.ts";

/**
 * How replication is doing, judged by where the replica stands, not by Litestream's errors: when
 * its replica cannot be written (a folder replaced by a file, a bucket gone) Litestream 0.3.13 logs
 * nothing and its error counter stays 0. So: when did the replica last move, and has the database
 * changed since without it following?
 */
export interface ReplicationState {
  configured: boolean;
  /** REPLICA_URL, as configured (null without replication). */
  replica: string | null;
  /** When the replica last moved (its newest WAL segment or snapshot); null: nothing replicated yet. */
  lastReplicatedAt: Date | null;
  secondsSinceReplicated: number | null;
  /** Configured, and a change of the database has waited more than REPLICA_FAIL_AFTER_SECONDS (60) for the replica. */
  failing: boolean;
}

/** A look at the replica lasts this long (an S3 listing is a request; /readyz and /metrics are polled). */
const LOOK_MS = 5000;

interface Watch {
  checkedAt: number;
  lastMoved: Date | null;
  /** The S3 listing under way, if any, and where the last one stopped. */
  pending?: Promise<void>;
  cursor: S3ReplicaCursor;
  /** The first database change seen that the replica has not followed yet (epoch ms), kept while the replica stands still. */
  behindSince: number | null;
}

/**
 * The replica's state at `now`. Synchronous (readiness and metrics ask often): a `file` replica is
 * looked at directly, an S3 one through a listing refreshed in the background every few seconds.
 * The watch is kept per app (with its database connection), not in this module.
 */
export function replicationState(ctx: AppContext, now: Date): ReplicationState {
  const replica = ctx.config.replica;
  if (!replica.target) return { configured: false, replica: null, lastReplicatedAt: null, secondsSinceReplicated: null, failing: false };
  const watch = connectionCache<Watch>(ctx.db, "replicationWatch", () => ({ checkedAt: 0, lastMoved: null, behindSince: null, cursor: new Map() }));
  const nowMs = now.getTime();
  if (nowMs - watch.checkedAt >= LOOK_MS || nowMs < watch.checkedAt) look(ctx, watch, nowMs);
  const moved = watch.lastMoved?.getTime() ?? 0;
  // The database's last change is its WAL's last write (every commit appends to it).
  const changed = lastChange(databaseFile(ctx.config.dataDir));
  // The replica has moved past the change first seen waiting: that one is replicated.
  if (watch.behindSince !== null && moved >= watch.behindSince) watch.behindSince = null;
  // A commit takes up to a sync interval (1 s) to reach the replica: only older ones count as behind.
  // The first change seen waiting is kept (not the newest): with steady writes the newest is always fresh.
  if (changed > moved + 1000) watch.behindSince ??= changed;
  else watch.behindSince = null;
  const failing = watch.behindSince !== null && nowMs - watch.behindSince > replica.failAfterSeconds * 1000;
  return {
    configured: true,
    replica: replica.url ?? null,
    lastReplicatedAt: watch.lastMoved,
    secondsSinceReplicated: watch.lastMoved ? Math.max(0, (nowMs - moved) / 1000) : null,
    failing,
  };
}

function look(ctx: AppContext, watch: Watch, nowMs: number): void {
  const target = ctx.config.replica.target!;
  if (target.kind === "file") {
    watch.lastMoved = fileReplicaLastMoved(target.path);
    watch.checkedAt = nowMs;
    return;
  }
  if (watch.pending) return;
  watch.pending = s3ReplicaLastMoved(target, watch.cursor, AbortSignal.timeout(LOOK_MS))
    .then((at) => {
      watch.lastMoved = at;
    })
    .catch((err) => ctx.log.warn({ err }, "listing the replica failed"))
    .finally(() => {
      watch.checkedAt = Date.now();
      watch.pending = undefined;
    });
}

function lastChange(dbFile: string): number {
  try {
    return fs.statSync(`${dbFile}-wal`).mtimeMs;
  } catch {
    return 0;
  }
}
