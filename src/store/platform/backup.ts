import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { withDirLock } from "../../lib/dir-lock.ts";
import { createPrivateFile, makePrivateDir } from "../../lib/private-files.ts";
import type { DB } from "../db.ts";

export interface BackupOptions {
  /** Called once if another backup holds this folder's lock (with its pid), before waiting for it. */
  onWait?: (holderPid: number) => void;
}

/**
 * Online backups with `VACUUM INTO`: one statement that reads the database under a single read
 * transaction (in WAL mode writers go on meanwhile) and writes a compact copy of that snapshot.
 * SQLite's backup API, used before, restarted its page-by-page copy whenever another connection
 * committed, so under steady writes it never finished (a 113 MB database at 20 subscribes/s). The
 * copy holds every transaction committed before it began and none half.
 *
 * It is written under a `.partial` name, flushed to disk, and renamed when complete; on failure
 * the partial file (and any journal beside it) is removed, and `.partial` files that a killed
 * backup left in the same directory are removed by the next one.
 *
 * One backup at a time per folder (`npm run backup` by hand and the server's scheduled one share
 * DATA_DIR/backups): a lock directory `.backup.lock` holding the pid, taken over when that process
 * is gone. Only its holder removes partial files; a second backup waits (`onWait` says so). A
 * `destination` given as a function is named once the lock is held, and never names an existing file.
 */
export async function backupDatabase(db: DB, destination: string | (() => string), opts: BackupOptions = {}): Promise<{ bytes: number; file: string }> {
  const dir = path.dirname(typeof destination === "string" ? destination : destination());
  makePrivateDir(dir);
  return withDirLock(path.join(dir, ".backup.lock"), async () => {
    let file = typeof destination === "string" ? destination : destination();
    // Names are per second: the one before us may have taken this second's.
    while (typeof destination !== "string" && fs.existsSync(file)) {
      await sleep(100);
      file = destination();
    }
    return { ...(await copyInto(db, dir, file)), file };
  }, 6 * 3600_000, opts.onWait);
}

async function copyInto(db: DB, dir: string, destination: string): Promise<{ bytes: number }> {
  removeStalePartials(dir);
  const tmp = `${destination}.partial`;
  removeWithJournals(tmp);
  try {
    // Made empty and owner-only first: VACUUM INTO fills an empty file as it is (a copy of the database is as private).
    createPrivateFile(tmp);
    db.prepare("VACUUM INTO ?").run(tmp);
    const fd = fs.openSync(tmp, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, destination);
    fsyncDir(dir);
  } catch (err) {
    removeWithJournals(tmp);
    throw err;
  }
  return { bytes: fs.statSync(destination).size };
}

function removeWithJournals(file: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
}

/** `.partial` copies (and their journals) left by a backup that was killed. */
function removeStalePartials(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (/\.partial(-journal|-wal|-shm)?$/.test(name)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not every platform can fsync a directory; the rename is still atomic.
  }
}

/**
 * Takes the database for this process alone, or answers undefined when another process has it open
 * (the server, a morning run, a sender, a backup): in WAL mode every open connection holds a shared
 * lock on the WAL index, so an exclusive lock is refused even while they are idle. Close the handle
 * to let go.
 */
export function takeDatabaseAlone(file: string): Database.Database | undefined {
  const db = new Database(file, { fileMustExist: true, timeout: 1000 });
  try {
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE; COMMIT");
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === "SQLITE_BUSY") return undefined;
    throw err;
  }
}

/** `PRAGMA integrity_check` of a database file, opened read-only: `["ok"]` when sound. */
export function integrityCheck(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma("integrity_check") as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
  } finally {
    db.close();
  }
}

/** Rows per table of a database file (what a restore brings back), for the operator's eyes. */
export function tableCounts(file: string, tables: readonly string[]): Record<string, number> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(tables.map((t) => [t, Number(db.prepare(`SELECT count(*) FROM "${t.replace(/"/g, "")}"`).pluck().get())]));
  } finally {
    db.close();
  }
}
