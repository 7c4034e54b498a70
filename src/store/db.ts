import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { createPrivateFile, keepPrivate, makePrivateDir } from "../lib/private-files.ts";

export type DB = Database.Database;

const MIGRATIONS_DIR = path.join(import.meta.dirname, "migrations");

export interface OpenOptions {
  /**
   * Litestream replicates this database (REPLICA_URL): it must own the checkpoints, so a commit never
   * checkpoints on its own (`wal_autocheckpoint = 0`). Litestream holds a read lock so that no
   * checkpoint but its own folds in WAL frames it has not copied yet; ours would only contend with it.
   * The WAL stays bounded by Litestream's checkpoints (passive from 1,000 pages, forced at 10,000).
   */
  replicated?: boolean;
}

/** Opens (creating if needed) the SQLite database in WAL mode and applies pending migrations. */
export function openDatabase(file: string, opts: OpenOptions = {}): DB {
  // Owner only (src/lib/private-files.ts): the file is made 0600 before SQLite opens it, so its WAL
  // and index are too; one made under a looser umask before is tightened.
  makePrivateDir(path.dirname(file));
  createPrivateFile(file);
  keepPrivate(file, `${file}-wal`, `${file}-shm`);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Writers from other processes (the morning run, admin commands, Litestream's checkpoints) wait
  // instead of failing with SQLITE_BUSY.
  db.pragma("busy_timeout = 5000");
  if (opts.replicated) db.pragma("wal_autocheckpoint = 0");
  // The WAL file is reused from its start after a checkpoint but keeps its largest size (67 MB after a
  // morning's burst); past 32 MB SQLite truncates it when it is reset.
  db.pragma("journal_size_limit = 33554432");
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

/**
 * Caches that belong to one connection (prepared statements, the tokenizer's memo) live on the
 * connection object itself, under a symbol: they die with it, a worker thread's own connection has
 * its own, and no module keeps per-app state on the side. Works for any better-sqlite3 handle, also
 * one a test opened without `openDatabase`.
 */
const CONNECTION_CACHES = Symbol("citydaily.connectionCaches");
type WithCaches = DB & { [CONNECTION_CACHES]?: Map<string, unknown> };

/** The cache `name` of this connection, made by `init` on first use. */
export function connectionCache<T>(db: DB, name: string, init: () => T): T {
  const caches = ((db as WithCaches)[CONNECTION_CACHES] ??= new Map());
  let cache = caches.get(name) as T | undefined;
  if (cache === undefined) caches.set(name, (cache = init()));
  return cache;
}

/**
 * A statement prepared once per connection, for queries run thousands of times (sender, publisher).
 *
 * Hot queries with an ORDER BY write their bound values as `+?` (`place_geoid = +?`): SQLite marks a
 * plain `?` compared there as one whose value may change the plan, and then prepares the statement
 * again on every run after a new binding (the cost of a prepare, 10 to 30 µs, on each call: a third
 * of a city page's reads). The unary plus keeps the value's meaning (no affinity, as `?`) and the
 * index, and the plan stays prepared (docs/performance.md, "The publish of the biggest slot").
 */
export function cachedStatement(db: DB, sql: string): Statement {
  const cache = connectionCache(db, "statements", () => new Map<string, Statement>());
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}
