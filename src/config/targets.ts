import { int, positiveInt } from "./parse.ts";

/**
 * `PUBLISH_TARGET`: `local` (the default: the server serves DATA_DIR/site itself) or
 * `s3://bucket/prefix` (each publish is also mirrored to S3-compatible object storage for a CDN).
 */
export type PublishTargetConfig = { kind: "local" } | S3TargetConfig;

export interface S3TargetConfig {
  kind: "s3";
  bucket: string;
  /** Key prefix, empty or ending in "/". */
  prefix: string;
  /** `AWS_REGION` (default us-east-1; R2 wants `auto`). */
  region: string;
  /** `AWS_ENDPOINT_URL` or `S3_ENDPOINT`: MinIO, R2, GCS interoperability...; unset: AWS S3. */
  endpoint?: string;
  /** `S3_FORCE_PATH_STYLE=true`: bucket in the path rather than the host name (MinIO, local servers). */
  forcePathStyle: boolean;
  /** `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`; unset: the SDK's default chain (instance role, profile...). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `S3_CONCURRENCY`: uploads in flight at once (default 16). */
  concurrency: number;
}

export function publishTargetConfig(env: NodeJS.ProcessEnv): PublishTargetConfig {
  const value = env.PUBLISH_TARGET || "local";
  if (value === "local") return { kind: "local" };
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (!m) throw new Error(`PUBLISH_TARGET must be "local" or s3://bucket/prefix, got "${value}"`);
  const prefix = (m[2] ?? "").replace(/^\/+|\/+$/g, "");
  const concurrency = int(env.S3_CONCURRENCY, 16, "S3_CONCURRENCY");
  if (concurrency < 1 || concurrency > 256) throw new Error("S3_CONCURRENCY must be 1-256");
  const endpoint = env.AWS_ENDPOINT_URL || env.S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint)) throw new Error(`AWS_ENDPOINT_URL must be an http(s) URL, got "${endpoint}"`);
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  return {
    kind: "s3",
    bucket: m[1],
    prefix: prefix ? `${prefix}/` : "",
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1",
    endpoint,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === "true" || env.S3_FORCE_PATH_STYLE === "1",
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    concurrency,
  };
}

/**
 * Continuous backup: `BACKUP_TARGET=s3://bucket/prefix` makes the server copy the database
 * (`VACUUM INTO`) every `BACKUP_INTERVAL_SECONDS` (default 3600) and upload it there, keeping the
 * newest `BACKUP_KEEP` (default 48) copies. The bucket settings (`AWS_*`, `S3_FORCE_PATH_STYLE`) are
 * the publish target's. Unset: no scheduled backup (`npm run backup` still works).
 */
export interface BackupConfig {
  target?: S3TargetConfig;
  intervalSeconds: number;
  keep: number;
}

export function backupConfig(env: NodeJS.ProcessEnv): BackupConfig {
  const intervalSeconds = positiveInt(env, "BACKUP_INTERVAL_SECONDS", 3600);
  const keep = positiveInt(env, "BACKUP_KEEP", 48);
  if (!env.BACKUP_TARGET) return { intervalSeconds, keep };
  const target = publishTargetConfig({ ...env, PUBLISH_TARGET: env.BACKUP_TARGET });
  if (target.kind !== "s3") throw new Error(`BACKUP_TARGET must be s3://bucket/prefix, got "${env.BACKUP_TARGET}"`);
  return { target, intervalSeconds, keep };
}
