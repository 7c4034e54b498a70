import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { freshDataDir } from "../helpers/server.ts";

/**
 * Two backups at once into the same folder (`npm run backup` by hand while the server's scheduled
 * one runs): each used to delete every `*.partial` there, the other's included, and both failed.
 * One backup at a time: the second waits, says so, and both copies are whole.
 */
let dataDir: string;

beforeAll(() => {
  dataDir = freshDataDir("citydaily-backups-");
  // Ballast that does not compress away, so that a copy takes long enough for the two to overlap.
  const db = new Database(path.join(dataDir, "citydaily.db"));
  db.exec("CREATE TABLE ballast (b BLOB)");
  const insert = db.prepare("INSERT INTO ballast (b) VALUES (randomblob(1048576))");
  db.transaction(() => { for (let i = 0; i < 160; i++) insert.run(); })();
  db.close();
});
afterAll(() => {
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

function backup() {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "scripts/backup.ts")], {
    cwd: PROJECT_ROOT, env: { ...process.env, DATA_DIR: dataDir, BASE_URL: "http://127.0.0.1", LOG_LEVEL: "silent" }, stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  return new Promise<{ code: number | null; out: string }>((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

describe("two backups at once", () => {
  it("the second waits for the first and says so; both succeed, each a whole copy under its own name, no partial left", async () => {
    // Started together (the report's were 0.7 s apart; on a quiet machine a copy of 160 MB can be over
    // by then): both start alike, one takes the lock and copies, the other meets the lock and waits.
    const first = backup();
    const second = backup();
    const [a, b] = await Promise.all([first, second]);
    expect(a, a.out).toMatchObject({ code: 0 });
    expect(b, b.out).toMatchObject({ code: 0 });
    expect(a.out + b.out).toMatch(/another backup is running/);
    const dir = path.join(dataDir, "backups");
    const files = fs.readdirSync(dir);
    expect(files.filter((f) => f.includes(".partial"))).toEqual([]);
    const copies = files.filter((f) => /^citydaily-\d{8}T\d{6}Z\.db$/.test(f));
    expect(copies).toHaveLength(2);
    for (const f of copies) {
      const copy = new Database(path.join(dir, f), { readonly: true });
      expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(copy.prepare("SELECT count(*) FROM ballast").pluck().get()).toBe(160);
      copy.close();
    }
    // The lock is gone with them.
    expect(files.filter((f) => f.includes("lock"))).toEqual([]);
  }, 120_000);
});
