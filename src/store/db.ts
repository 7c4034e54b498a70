import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

export type DB = Database.Database;

const MIGRATIONS_DIR = path.join(import.meta.dirname, "migrations");

/** Opens (creating if needed) the SQLite database in WAL mode and applies pending migrations. */
export function openDatabase(file: string): DB {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Writers from other processes (the morning run, admin commands) wait instead of failing.
  db.pragma("busy_timeout = 5000");
  migrate(db);
  return db;
}

export function databaseFile(dataDir: string): string {
  return path.join(dataDir, "citydaily.db");
}

/** Migrations are `NNN-name.sql` files; `PRAGMA user_version` records the last one applied. */
export function migrate(db: DB): void {
  const files = fs.readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{3}-.*\.sql$/.test(f)).sort();
  const current = db.pragma("user_version", { simple: true }) as number;
  for (const file of files) {
    const version = Number(file.slice(0, 3));
    if (version <= current) continue;
    const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, file), "utf8");
    // BEGIN IMMEDIATE takes the write lock first, so two processes starting at once cannot both apply it.
    db.transaction(() => {
      if ((db.pragma("user_version", { simple: true }) as number) >= version) return;
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    }).immediate();
  }
}

type Statement = Database.Statement<unknown[]>;
const statementCache = new WeakMap<DB, Map<string, Statement>>();

/** A statement prepared once per connection, for queries run thousands of times (sender, publisher). */
export function cachedStatement(db: DB, sql: string): Statement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}
