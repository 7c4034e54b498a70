import { positiveInt } from "./parse.ts";
import { publishTargetConfig, type S3TargetConfig } from "./targets.ts";

/**
 * Continuous replication of the database with Litestream: `REPLICA_URL=file:///path` or
 * `s3://bucket/prefix` (the bucket settings, `AWS_*` and `S3_FORCE_PATH_STYLE`, are the publish
 * target's: MinIO and R2 work through `AWS_ENDPOINT_URL`). Unset: no replication, nothing changes.
 */
export interface ReplicaConfig {
  /** The replica as given; undefined when replication is off. */
  url?: string;
  target?: { kind: "file"; path: string } | S3TargetConfig;
  /** `REPLICA_RETENTION` (Litestream duration, default `72h`): how far back a point-in-time restore reaches. */
  retention: string;
  /** `REPLICA_SNAPSHOT_INTERVAL` (default `1h`): a whole snapshot this often; restores replay WAL from the last one. */
  snapshotInterval: string;
  /** `REPLICA_SYNC_INTERVAL` (default `1s`): how often new WAL frames are shipped, the most a lost disk loses. */
  syncInterval: string;
  /** `REPLICA_FAIL_AFTER_SECONDS` (default 60): a change not replicated for this long makes replication failing. */
  failAfterSeconds: number;
  /** `REPLICA_LOG_LEVEL` (default `warn`): Litestream's own log; at `info` it writes a line per WAL segment shipped. */
  logLevel: "debug" | "info" | "warn" | "error";
}

const DURATION = /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/;

function duration(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name] || fallback;
  if (!DURATION.test(value)) throw new Error(`${name} must be a duration such as 72h, 30m or 1s, got "${value}"`);
  return value;
}

export function replicaConfig(env: NodeJS.ProcessEnv): ReplicaConfig {
  const base = {
    retention: duration(env, "REPLICA_RETENTION", "72h"),
    snapshotInterval: duration(env, "REPLICA_SNAPSHOT_INTERVAL", "1h"),
    syncInterval: duration(env, "REPLICA_SYNC_INTERVAL", "1s"),
    failAfterSeconds: positiveInt(env, "REPLICA_FAIL_AFTER_SECONDS", 60),
    logLevel: (env.REPLICA_LOG_LEVEL || "warn") as ReplicaConfig["logLevel"],
  };
  if (!["debug", "info", "warn", "error"].includes(base.logLevel)) throw new Error(`REPLICA_LOG_LEVEL must be debug, info, warn or error, got "${base.logLevel}"`);
  const url = env.REPLICA_URL || undefined;
  if (!url) return base;
  if (url.startsWith("file://")) {
    const file = new URL(url).pathname;
    if (!file || file === "/") throw new Error(`REPLICA_URL must name a folder, file:///var/lib/citydaily-replica for example, got "${url}"`);
    return { ...base, url, target: { kind: "file", path: decodeURIComponent(file).replace(/\/+$/, "") } };
  }
  if (url.startsWith("s3://")) {
    const target = publishTargetConfig({ ...env, PUBLISH_TARGET: url });
    if (target.kind !== "s3") throw new Error(`REPLICA_URL must be file:///path or s3://bucket/prefix, got "${url}"`);
    return { ...base, url, target };
  }
  throw new Error(`REPLICA_URL must be file:///path or s3://bucket/prefix, got "${url}"`);
}
