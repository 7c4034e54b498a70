import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type DB } from "../../src/store/db.ts";
import { createGroupCommit } from "../../src/store/group-commit.ts";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function database(): DB {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-group-commit-"));
  dirs.push(dir);
  const db = openDatabase(path.join(dir, "citydaily.db"));
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)");
  return db;
}

const levelOf = (db: DB) => db.pragma("synchronous", { simple: true }) as number; // 1 NORMAL, 2 FULL

describe("the group commit", () => {
  it("commits the writes of one turn in one transaction with an fsync (FULL), then goes back to NORMAL", async () => {
    const db = database();
    const commits = createGroupCommit(db);
    const seen: Array<{ level: number; inTransaction: boolean }> = [];
    const ids = await Promise.all(["a", "b", "c"].map((text) => commits.run(() => {
      seen.push({ level: levelOf(db), inTransaction: db.inTransaction });
      return Number(db.prepare("INSERT INTO notes (text) VALUES (?)").run(text).lastInsertRowid);
    })));
    expect(ids).toEqual([1, 2, 3]);
    expect(seen).toEqual(Array(3).fill({ level: 2, inTransaction: true }));
    expect(levelOf(db)).toBe(1);
    expect(db.prepare("SELECT text FROM notes ORDER BY id").pluck().all()).toEqual(["a", "b", "c"]);
  });

  it("resolves only after the commit: nothing is visible to the caller before", async () => {
    const db = database();
    const commits = createGroupCommit(db);
    const pending = commits.run(() => db.prepare("INSERT INTO notes (text) VALUES ('later')").run());
    expect(db.prepare("SELECT count(*) FROM notes").pluck().get()).toBe(0);
    await pending;
    expect(db.prepare("SELECT count(*) FROM notes").pluck().get()).toBe(1);
  });

  it("undoes a write that throws, alone: the others of its batch are stored and resolve", async () => {
    const db = database();
    const commits = createGroupCommit(db);
    const results = await Promise.allSettled([
      commits.run(() => db.prepare("INSERT INTO notes (text) VALUES ('kept')").run()),
      commits.run(() => {
        db.prepare("INSERT INTO notes (text) VALUES ('undone')").run();
        db.prepare("INSERT INTO notes (text) VALUES ('kept')").run(); // UNIQUE: throws
      }),
      commits.run(() => db.prepare("INSERT INTO notes (text) VALUES ('also kept')").run()),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(db.prepare("SELECT text FROM notes ORDER BY id").pluck().all()).toEqual(["kept", "also kept"]);
    expect(levelOf(db)).toBe(1);
  });
});
