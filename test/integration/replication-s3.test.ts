import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishTargetConfig, type S3TargetConfig } from "../../src/config/targets.ts";
import { s3ReplicaLastMoved, type S3ReplicaCursor } from "../../src/integrations/backup/litestream.ts";
import { freePort, killHard, quietEnv, startLikeNpm, type SpawnedServer } from "../helpers/replica-server.ts";
import { S3StandIn } from "../helpers/s3-stand-in.ts";
import { freshDataDir } from "../helpers/server.ts";

// Litestream's S3 replica as `npm start` runs it, against an S3 stand-in on 127.0.0.1 (path style,
// any credentials): the replica fills with generations, /readyz's replication check follows it
// through our own S3 listing, and a machine lost with kill -9 and its DATA_DIR deleted comes back
// from the bucket with its subscriptions. Also our incremental listing over many pages.

const BUCKET = "citydaily-db";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function subscribe(server: SpawnedServer, email: string): Promise<void> {
  const res = await fetch(`${server.url}/api/subscribe`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, city: "Boise", state: "Idaho", slug: "boise-idaho" }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

function emailsIn(dataDir: string): string[] {
  const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT email FROM subscribers ORDER BY email").pluck().all() as string[];
  } finally {
    db.close();
  }
}

interface Check { status: string; observedValue?: number; output?: string }
async function replicationCheck(server: SpawnedServer): Promise<Check> {
  const body = await (await fetch(`${server.url}/readyz`)).json();
  return (body.checks["replication:lag"] as Check[])[0];
}

describe("replication to S3 (Litestream 0.3.13 against the S3 stand-in)", () => {
  let s3: S3StandIn;
  const scratch: string[] = [];
  beforeAll(async () => {
    s3 = await new S3StandIn([BUCKET]).start();
  });
  afterAll(async () => {
    await s3?.stop();
    for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("npm start replicates to s3://bucket/prefix, /readyz follows the replica, and after kill -9 and DATA_DIR deleted the subscriptions come back from the bucket", async () => {
    const dataDir = freshDataDir("citydaily-repl-s3-");
    scratch.push(dataDir);
    const env = quietEnv(await freePort(), {
      DATA_DIR: dataDir, REPLICA_URL: `s3://${BUCKET}/replica`, AWS_ENDPOINT_URL: s3.url, S3_FORCE_PATH_STYLE: "true",
      AWS_ACCESS_KEY_ID: "AKIDSTANDIN", AWS_SECRET_ACCESS_KEY: "stand-in-secret", AWS_REGION: "us-east-1",
    });
    const first = await startLikeNpm(env);
    try {
      // The data folder starts with a database (the test template): nothing is restored.
      expect(first.output()).not.toContain("restored");
      const emails = ["one@example.org", "two@example.org", "three@example.org"];
      for (const email of emails.slice(0, 2)) await subscribe(first, email);
      // Litestream's layout, in the bucket: a generation with a snapshot and WAL segments.
      let keys: string[] = [];
      for (let i = 0; i < 50 && !keys.some((k) => /\/wal\//.test(k)); i++, await sleep(200)) keys = s3.keys(BUCKET, "replica/");
      expect(keys.some((k) => /^replica\/generations\/[0-9a-f]{16}\/snapshots\/[0-9a-f]{8}\.snapshot\.lz4$/.test(k)), keys.join("\n")).toBe(true);
      expect(keys.some((k) => /^replica\/generations\/[0-9a-f]{16}\/wal\/[0-9a-f]{8}_[0-9a-f]{8}\.wal\.lz4$/.test(k)), keys.join("\n")).toBe(true);

      // /readyz judges the replica by listing the bucket (every 5 s at most): it passes, seconds fresh.
      let check = await replicationCheck(first);
      for (let i = 0; i < 40 && check.status !== "pass"; i++, await sleep(250)) check = await replicationCheck(first);
      expect(check, JSON.stringify(check)).toMatchObject({ status: "pass" });
      const walCount = () => s3.keys(BUCKET, "replica/").filter((k) => k.includes("/wal/")).length;
      const walBefore = walCount();
      const listedBefore = s3.requests.filter((r) => r.op === "ListObjectsV2").length;
      // The replica moves with the next subscription, and the server's listing sees it move.
      await sleep(6000);
      await subscribe(first, emails[2]);
      for (let i = 0; i < 30 && walCount() === walBefore; i++) await sleep(200);
      expect(walCount()).toBeGreaterThan(walBefore);
      await sleep(5500);
      check = await replicationCheck(first);
      for (let i = 0; i < 20 && (check.observedValue ?? 99) > 6; i++, await sleep(250)) check = await replicationCheck(first);
      expect(check.status).toBe("pass");
      expect(check.observedValue).toBeLessThanOrEqual(6);
      // Incremental: the WAL is listed from where the last look stopped.
      const later = s3.requests.filter((r) => r.op === "ListObjectsV2").slice(listedBefore);
      expect(later.some((r) => r.query.get("start-after")?.includes("/wal/")), JSON.stringify(later.map((r) => r.query.toString()))).toBe(true);
      await sleep(1500);

      await killHard(first);
      fs.rmSync(dataDir, { recursive: true, force: true });
      const second = await startLikeNpm(env);
      try {
        expect(second.output()).toMatch(new RegExp(`restored .*citydaily\\.db from s3://${BUCKET}/replica`));
        expect(emailsIn(dataDir)).toEqual([...emails].sort());
        const res = await fetch(`${second.url}/readyz`);
        expect(res.status).toBe(200);
      } finally {
        second.child.kill("SIGTERM");
        expect(await second.exited).toBe(0);
      }
      // Nothing either client sent was refused: Litestream's multipart snapshot (the 13 MB template
      // database), its Content-MD5 WAL segments, its v1 listings and GETs; our ListObjectsV2.
      const ops = new Set(s3.requests.map((r) => `${r.op} ${r.status}`));
      expect([...ops].filter((o) => !/ 20[0-9]$/.test(o))).toEqual([]);
      expect([...ops]).toEqual(expect.arrayContaining(["ListObjects 200", "CreateMultipartUpload 200", "UploadPart 200", "CompleteMultipartUpload 200", "PutObject 200", "GetObject 200", "ListObjectsV2 200"]));
    } finally {
      if (first.child.exitCode === null) await killHard(first);
    }
  }, 180_000);

  it("our listing of an S3 replica pages through thousands of WAL segments once, then lists only what is new", async () => {
    const target: S3TargetConfig = {
      ...(publishTargetConfig({ PUBLISH_TARGET: `s3://${BUCKET}/listed/`, AWS_ENDPOINT_URL: s3.url, S3_FORCE_PATH_STYLE: "true", AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" }) as S3TargetConfig),
    };
    const hex = (n: number) => n.toString(16).padStart(8, "0");
    const base = Date.parse("2026-11-27T10:00:00Z");
    const old = "0123456789abcdef";
    const gen = "fedcba9876543210";
    s3.put(BUCKET, `listed/generations/${old}/snapshots/00000000.snapshot.lz4`, "s", new Date(base - 3600_000));
    s3.put(BUCKET, `listed/generations/${gen}/snapshots/00000000.snapshot.lz4`, "s", new Date(base));
    for (let i = 0; i < 2500; i++) s3.put(BUCKET, `listed/generations/${gen}/wal/${hex(i)}_00000000.wal.lz4`, "w", new Date(base + i * 1000));
    // A key outside the generations, and one in a deeper folder, are not segments to follow.
    s3.put(BUCKET, "listed/other.txt", "x", new Date(base + 10e9));
    const cursor: S3ReplicaCursor = new Map();
    const mark = s3.requests.length;
    expect(await s3ReplicaLastMoved(target, cursor)).toEqual(new Date(base + 2499_000));
    const first = s3.requests.slice(mark).filter((r) => r.op === "ListObjectsV2");
    // The generations (one page, two common prefixes), 3 pages of WAL, and each generation's snapshots.
    expect(first.length).toBe(1 + 1 + 3 + 2);
    expect(cursor.get(`listed/generations/${gen}/`)?.key).toBe(`listed/generations/${gen}/wal/${hex(2499)}_00000000.wal.lz4`);

    s3.put(BUCKET, `listed/generations/${gen}/wal/${hex(2500)}_00000000.wal.lz4`, "w", new Date(base + 2600_000));
    const mark2 = s3.requests.length;
    expect(await s3ReplicaLastMoved(target, cursor)).toEqual(new Date(base + 2600_000));
    const second = s3.requests.slice(mark2).filter((r) => r.op === "ListObjectsV2");
    expect(second.length).toBe(1 + 2 + 2);
    // Nothing new: the newest time stays where it was (the cursor remembers it).
    expect(await s3ReplicaLastMoved(target, cursor)).toEqual(new Date(base + 2600_000));
  }, 30_000);
});
