import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const script = (name: string, env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, [path.join(ROOT, "scripts", name), ...args], { cwd: ROOT, env: { ...process.env, BASE_URL: "http://127.0.0.1", LOG_LEVEL: "silent", ...env } });

let server: TestServer;
const subscribe = (i: number) =>
  server.post("/api/subscribe", { email: `reader${i}@example.org`, city: "Boise", state: "Idaho", slug: "boise-idaho" });

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "100000" });
});
afterAll(async () => {
  await server?.stop();
});

describe("npm run backup / npm run restore", () => {
  let backupFile: string;
  let inBackup: number;

  it("copies the database consistently while the server takes writes", async () => {
    for (let i = 0; i < 50; i++) expect((await subscribe(i)).status).toBe(200);
    // Keep subscribing over HTTP for as long as the backup runs.
    let writing = true, written = 50;
    const writer = (async () => {
      while (writing) {
        const r = await subscribe(written);
        expect(r.status).toBe(200);
        written++;
      }
    })();
    backupFile = path.join(server.dataDir, "backups", "during-writes.db");
    const { stdout } = await script("backup.ts", { DATA_DIR: server.dataDir }, backupFile);
    writing = false;
    await writer;
    expect(stdout).toMatch(/integrity_check ok/);
    expect(fs.existsSync(`${backupFile}.partial`)).toBe(false);

    const copy = new Database(backupFile, { readonly: true });
    inBackup = copy.prepare("SELECT count(*) FROM subscribers").pluck().get() as number;
    // Every subscription in the copy has its welcome email queued: no half of a transaction.
    const orphans = copy.prepare(`SELECT count(*) FROM subscribers s WHERE NOT EXISTS
      (SELECT 1 FROM outbox o WHERE o.subscriber_id = s.id AND o.kind = 'welcome')`).pluck().get();
    expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
    copy.close();
    expect(orphans).toBe(0);
    expect(inBackup).toBeGreaterThanOrEqual(50);
    expect(inBackup).toBeLessThanOrEqual(written);
  });

  it("restores a backup into a data directory, and the server serves it", async () => {
    const target = freshDataDir("citydaily-restore-");
    const { stdout } = await script("restore.ts", { DATA_DIR: target }, backupFile);
    expect(stdout).toContain(`${inBackup} subscribers`);
    // The database it replaced is kept aside, not deleted.
    expect(fs.readdirSync(target).some((f) => f.startsWith("citydaily.db.before-restore-"))).toBe(true);
    const restored = await startTestServer({ DATA_DIR: target, MAIL_SENDER: "off" });
    try {
      const city = await (await restored.get("/api/city/boise-idaho")).json() as { subscriberCount: number };
      expect(city.subscriberCount).toBe(inBackup);
    } finally {
      await restored.stop();
    }
  });

  it("refuses to restore under a running server (its writes would go to the file moved aside) and leaves the database alone", async () => {
    const before = await (await server.get("/api/city/boise-idaho")).json() as { subscriberCount: number };
    const failed = await script("restore.ts", { DATA_DIR: server.dataDir }, backupFile).then(() => undefined, (e: { code: number; stderr: string }) => e);
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/not restored: the database is in use/);
    expect(fs.readdirSync(server.dataDir).filter((f) => f.includes("before-restore"))).toEqual([]);
    // The server goes on with its own data, and what it stores now is kept.
    expect((await subscribe(100_000)).status).toBe(200);
    const after = await (await server.get("/api/city/boise-idaho")).json() as { subscriberCount: number };
    expect(after.subscriberCount).toBe(before.subscriberCount + 1);
  });

  it("refuses to restore a damaged file and leaves the database alone", async () => {
    const target = freshDataDir("citydaily-restore-");
    const before = fs.readFileSync(path.join(target, "citydaily.db"));
    const damaged = path.join(target, "damaged.db");
    const bytes = fs.readFileSync(backupFile);
    bytes.fill(0x41, 4096, 4096 * 8); // overwrite a few pages after the header
    fs.writeFileSync(damaged, bytes);
    const failed = await script("restore.ts", { DATA_DIR: target }, damaged).then(() => undefined, (e: { code: number; stderr: string }) => e);
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/not restored/);
    expect(fs.readFileSync(path.join(target, "citydaily.db")).equals(before)).toBe(true);
    fs.rmSync(target, { recursive: true, force: true });
  });
});
