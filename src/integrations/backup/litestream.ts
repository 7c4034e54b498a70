import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import type { ReplicaConfig } from "../../config/replication.ts";
import type { S3TargetConfig } from "../../config/targets.ts";
import { makePrivateDir } from "../../lib/private-files.ts";
import { s3Client } from "../publish/s3.ts";

/**
 * Litestream (https://litestream.io): the binary of the npm package `@flydotio/litestream-<platform>`
 * (an optional dependency, so `npm ci` installs the one for this machine; the `@flydotio/litestream`
 * wrapper is not used: it exits 0 when a restore fails, and its other platforms' packages are not on
 * every registry), or `LITESTREAM_BIN` when set.
 */
export function litestreamBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LITESTREAM_BIN) return env.LITESTREAM_BIN;
  const pkg = `@flydotio/litestream-${process.platform}-${process.arch}`;
  const require = createRequire(import.meta.url);
  try {
    return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), process.platform === "win32" ? "litestream.exe" : "litestream");
  } catch {
    throw new Error(`REPLICA_URL needs Litestream, and ${pkg} is not installed: npm install --no-save ${pkg}, or set LITESTREAM_BIN to a litestream 0.3 binary`);
  }
}

const q = (value: string) => JSON.stringify(value);

/**
 * The config file for one database and its replica. Credentials are not written: Litestream reads
 * `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` from its environment. Checkpoints are left to
 * Litestream's defaults (a passive one from 1,000 WAL pages and every minute, a forced one at 10,000
 * pages), which is what bounds the WAL once the app's own autocheckpoint is off (src/store/db.ts).
 */
export function litestreamYaml(dbFile: string, replica: ReplicaConfig): string {
  const t = replica.target;
  if (!t) throw new Error("REPLICA_URL is not set");
  // One JSON object a line, as the server's own log.
  const lines = ["logging:", `  level: ${replica.logLevel}`, "  type: json", "dbs:", `  - path: ${q(dbFile)}`, "    replicas:"];
  if (t.kind === "file") lines.push("      - type: file", `        path: ${q(t.path)}`);
  else {
    lines.push("      - type: s3", `        bucket: ${q(t.bucket)}`, `        path: ${q(t.prefix.replace(/\/+$/, ""))}`, `        region: ${q(t.region)}`);
    if (t.endpoint) lines.push(`        endpoint: ${q(t.endpoint)}`);
    if (t.forcePathStyle) lines.push("        force-path-style: true");
  }
  lines.push(
    `        sync-interval: ${q(replica.syncInterval)}`,
    `        snapshot-interval: ${q(replica.snapshotInterval)}`,
    `        retention: ${q(replica.retention)}`,
  );
  return `${lines.join("\n")}\n`;
}

/** Writes the config file beside the database (DATA_DIR/litestream.yml) and returns its path. */
export function writeLitestreamConfig(dataDir: string, dbFile: string, replica: ReplicaConfig): string {
  // The restore before the first start makes DATA_DIR: owner only, like the database it will hold.
  makePrivateDir(dataDir);
  const file = path.join(dataDir, "litestream.yml");
  fs.writeFileSync(`${file}.tmp`, litestreamYaml(dbFile, replica), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

export interface RestoreOptions {
  /** Where the restored database is written (Litestream refuses an existing file). */
  output: string;
  /** A point in time: the database as it was then; default the latest. */
  timestamp?: Date;
  /** Exit quietly (restored: false) when the replica holds no database. */
  ifReplicaExists?: boolean;
}

export interface RestoreResult {
  restored: boolean;
  /** Litestream's own output, for the log or the error. */
  output: string;
}

/** `litestream restore`: throws with Litestream's output when it fails. */
export function restoreReplica(configFile: string, dbFile: string, opts: RestoreOptions): RestoreResult {
  const args = ["restore", "-config", configFile, "-o", opts.output];
  if (opts.timestamp) args.push("-timestamp", opts.timestamp.toISOString());
  if (opts.ifReplicaExists) args.push("-if-replica-exists");
  args.push(dbFile);
  const run = spawnSync(litestreamBinary(), args, { encoding: "utf8", env: process.env, timeout: 6 * 3600_000 });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.trim();
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`litestream restore failed (exit ${run.status ?? run.signal}): ${output.slice(-2000)}`);
  return { restored: fs.existsSync(opts.output), output };
}

/**
 * When the replica last moved: the newest change of a generation's `wal` or `snapshots` folder in a
 * `file` replica (Litestream 0.3.13 writes `generations/<id>/wal/<index>_<offset>.wal.lz4`, so each
 * new segment changes its folder; a folder's time is one stat where listing 72 hours of segments
 * would be thousands of names), or the newest object's LastModified in S3. Null: no replica yet.
 */
export function fileReplicaLastMoved(root: string): Date | null {
  const generations = path.join(root, "generations");
  let newest = 0;
  for (const gen of readdir(generations)) {
    for (const part of ["wal", "snapshots"]) newest = Math.max(newest, mtimeMs(path.join(generations, gen, part)));
  }
  return newest ? new Date(newest) : null;
}

/** Where the last S3 look stopped: per generation, the newest WAL key seen and its time. */
export type S3ReplicaCursor = Map<string, { key: string; at: number }>;

/**
 * The S3 replica's newest object time. Keys of a generation's WAL segments sort in the order they
 * were written, so with a `cursor` kept between looks each look lists only what is new (S3 lists
 * forward only; 72 hours of segments would be hundreds of pages every time).
 */
export async function s3ReplicaLastMoved(target: S3TargetConfig, cursor: S3ReplicaCursor = new Map(), signal?: AbortSignal): Promise<Date | null> {
  const client = s3Client(target);
  try {
    return await newestReplicaObject(client, target, cursor, signal);
  } finally {
    // A client a look: its connections are closed with it, not left to linger until the next one.
    client.destroy();
  }
}

async function newestReplicaObject(client: S3Client, target: S3TargetConfig, cursor: S3ReplicaCursor, signal: AbortSignal | undefined): Promise<Date | null> {
  const root = `${target.prefix}generations/`;
  const list = async (prefix: string, startAfter?: string, delimiter?: string) => {
    const keys: Array<{ key: string; at: number }> = [];
    const prefixes: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({
        Bucket: target.bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token, StartAfter: token ? undefined : startAfter,
      }), { abortSignal: signal });
      for (const o of page.Contents ?? []) keys.push({ key: o.Key ?? "", at: o.LastModified?.getTime() ?? 0 });
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) prefixes.push(p.Prefix);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return { keys, prefixes };
  };
  let newest = 0;
  const { prefixes: generations } = await list(root, undefined, "/");
  for (const gen of generations) {
    const seen = cursor.get(gen);
    const wal = await list(`${gen}wal/`, seen?.key);
    // One pass (no spread into Math.max: a first look may list a quarter of a million segments).
    let last = seen ?? { key: "", at: 0 };
    newest = Math.max(newest, last.at);
    for (const k of wal.keys) {
      newest = Math.max(newest, k.at);
      if (k.key > last.key) last = k;
    }
    if (last.key) cursor.set(gen, last);
    for (const snap of (await list(`${gen}snapshots/`)).keys) newest = Math.max(newest, snap.at);
  }
  return newest ? new Date(newest) : null;
}

function readdir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function mtimeMs(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}
