import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { backupStore } from "../../src/services/platform/backups.ts";
import { freshDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * Continuous backup to object storage (s3rver, in this process): the server uploads a checked copy
 * every BACKUP_INTERVAL_SECONDS while it takes writes and keeps the newest BACKUP_KEEP; the restore
 * drill downloads the newest and checks it; `npm run restore -- --latest` brings it back and a
 * server started on it serves what it held.
 */
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const BUCKET = "citydaily-backups";

let s3dir: string;
let s3: S3rver;
let env: Record<string, string>;
let server: TestServer;

beforeAll(async () => {
  s3dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-s3-backups-"));
  s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port } = await s3.run();
  env = {
    BACKUP_TARGET: `s3://${BUCKET}/db/`, AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`, S3_FORCE_PATH_STYLE: "true",
    AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER", BACKUP_KEEP: "2",
  };
  server = await startTestServer({ ...env, BACKUP_INTERVAL_SECONDS: "1", MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "100000" });
});
afterAll(async () => {
  await server?.stop();
  await s3?.close();
  fs.rmSync(s3dir, { recursive: true, force: true });
});

const script = (name: string, extra: Record<string, string>, ...args: string[]) =>
  run(process.execPath, [path.join(ROOT, "scripts", name), ...args], { cwd: ROOT, env: { ...process.env, BASE_URL: "http://127.0.0.1", LOG_LEVEL: "silent", ...env, ...extra } });

describe("continuous backup to object storage", () => {
  it("uploads a checked copy on schedule while writes go on, keeps the newest, and the drill and a restore bring it back", async () => {
    const store = backupStore(loadConfig({ ...env, DATA_DIR: server.dataDir }))!;
    let written = 0;
    const seen = new Set<string>();
    const deadline = Date.now() + 30_000;
    // Subscribing while the schedule runs, until three backups have been made.
    while (seen.size < 3) {
      expect(Date.now()).toBeLessThan(deadline);
      const r = await server.post("/api/subscribe", { email: `cb${written}@example.org`, city: "Boise", state: "Idaho", slug: "boise-idaho" });
      expect(r.status).toBe(200);
      written++;
      for (const name of await store.list()) seen.add(name);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Only the newest BACKUP_KEEP stay in the bucket, and nothing is left in DATA_DIR/backups.
    await new Promise((r) => setTimeout(r, 300));
    const kept = await store.list();
    expect(kept.length).toBeLessThanOrEqual(3);
    // The schedule goes on (every second), so a backup may be under way at any instant: what must not
    // happen is a partial copy that stays. Each one seen has to be gone within a few seconds.
    const partials = () => fs.readdirSync(path.join(server.dataDir, "backups")).filter((f) => f.endsWith(".partial"));
    const seenPartials = partials();
    for (const until = Date.now() + 10_000; seenPartials.some((f) => partials().includes(f)) && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
    expect(partials().filter((f) => seenPartials.includes(f))).toEqual([]);

    const drill = await script("backup-drill.ts", { DATA_DIR: server.dataDir, BACKUP_INTERVAL_SECONDS: "60" });
    const inDrill = Number(/(\d+) subscribers/.exec(drill.stdout)?.[1]);
    expect(drill.stdout).toMatch(/^drill ok: citydaily-\d{8}T\d{6}Z\.db, \d+ s old, .* integrity_check ok; /);
    expect(inDrill).toBeGreaterThan(0);
    expect(inDrill).toBeLessThanOrEqual(written);

    // The restore itself, into a new data directory, from the newest backup.
    await server.close(); // stops the schedule: the newest backup no longer changes
    const newest = (await store.list()).at(-1)!;
    const target = freshDataDir("citydaily-restore-s3-");
    const restored = await script("restore.ts", { DATA_DIR: target }, "--latest");
    expect(restored.stdout).toContain(`downloaded ${newest}`);
    const fromBackup = Number(/(\d+) subscribers/.exec(restored.stdout.split("\n").at(-2) ?? "")?.[1]);
    expect(fromBackup).toBeGreaterThanOrEqual(inDrill);
    const live = await startTestServer({ DATA_DIR: target, MAIL_SENDER: "off" });
    try {
      const city = (await (await live.get("/api/city/boise-idaho")).json()) as { subscriberCount: number };
      expect(city.subscriberCount).toBe(fromBackup);
    } finally {
      await live.stop();
    }
  }, 60_000);

  it("a drill with nothing in the bucket fails loudly", async () => {
    const err = await script("backup-drill.ts", { DATA_DIR: freshDataDir(), BACKUP_TARGET: `s3://${BUCKET}/empty/` }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    expect((err as { stderr: string }).stderr).toContain("drill FAILED: no backup in the bucket");
  }, 30_000);
});
