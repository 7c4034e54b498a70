import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { DB } from "./db.ts";

/**
 * Online backups with SQLite's backup API: pages are copied in steps while other connections (the
 * server, the morning run) keep writing; a write during the copy makes SQLite restart the remaining
 * steps from the changed page, so the copy is one consistent snapshot of the database.
 */
export async function backupDatabase(db: DB, destination: string): Promise<{ totalPages: number }> {
  fs.mkdirSync(path.dirname(destination), { recursive: true });
  const tmp = `${destination}.partial`;
  fs.rmSync(tmp, { force: true });
  const result = await db.backup(tmp);
  // The copy appears under its final name only once complete (a crash leaves a `.partial` behind).
  fs.renameSync(tmp, destination);
  return { totalPages: result.totalPages };
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
