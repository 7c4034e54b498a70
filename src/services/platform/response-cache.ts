import { LRUCache } from "lru-cache";
import { CACHE, type Operation } from "../../contract/operation.ts";
import { dataVersion, dataVersionOfTurn } from "../../store/platform/data-version.ts";
import type { AppContext } from "./context.ts";

/**
 * Cached reads answered from memory: for HTTP the encoded body and its ETag, made once (the
 * compression middleware keeps the compressed variants by ETag, so they too are made once per
 * entry); for MCP the tool's result. An entry is good while the database is unchanged (its data
 * version: every write of this process, every commit of another, so a morning's publish or a new
 * subscription ends it) and until the clock passes the next second or the next instant a listing,
 * checkout or reservation falls due (what the reads show depends on the time of day only that finely).
 */
export interface EncodedRead {
  body: string;
  etag: string;
  contentType: string;
  cacheControl: string;
  headers: Record<string, string>;
}

export type CachedRead<T extends object = EncodedRead> = T & {
  version: string;
  /** Milliseconds since the epoch (on the app's clock) from which the entry is stale. */
  until: number;
};

export interface ResponseCache<T extends object = EncodedRead> {
  /** Whether an operation's answers may be kept: public reads that a shared cache may keep too. */
  keeps(op: Operation): boolean;
  /** The version to note before running a read (a write while it runs makes it unstorable). */
  version(): string;
  get(key: string): CachedRead<T> | undefined;
  /** Keeps the entry; returns until when it is good, or undefined when it could not be kept. */
  set(key: string, versionBefore: string, entry: T, nextDue: string | undefined): number | undefined;
}

export function createResponseCache<T extends object = EncodedRead>(ctx: AppContext, maxEntries = 5000): ResponseCache<T> {
  const entries = new LRUCache<string, CachedRead<T>>({ max: maxEntries });
  // A hit is checked with dataVersionOfTurn: reading the full version per hit was a fifth of a
  // replayed MCP call's CPU. Keeping an entry reads it exactly (a write during the read keeps nothing).
  return {
    keeps: (op) => op.method === "GET" && op.auth !== "admin" && op.cache !== undefined && op.cache !== CACHE.none,
    version: () => dataVersion(ctx.db),
    get(key) {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.version !== dataVersionOfTurn(ctx.db) || ctx.config.now().getTime() >= hit.until) {
        entries.delete(key);
        return undefined;
      }
      return hit;
    },
    set(key, versionBefore, entry, nextDue) {
      const version = dataVersion(ctx.db);
      // Something wrote while the read ran (it may have read before or after): keep nothing.
      if (version !== versionBefore) return undefined;
      const now = ctx.config.now().getTime();
      const due = nextDue === undefined ? Infinity : Date.parse(nextDue);
      const until = Math.min(Math.floor(now / 1000) * 1000 + 1000, due);
      entries.set(key, { ...entry, version, until });
      return until;
    },
  };
}
