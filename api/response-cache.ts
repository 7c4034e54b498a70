import { LRUCache } from "lru-cache";
import { CACHE, type Operation } from "../src/contract/operation.ts";
import type { AppContext } from "../src/services/context.ts";
import { dataVersion } from "../src/store/data-version.ts";

/**
 * Cached reads answered from memory. An entry holds the encoded body and its ETag, made once; it
 * is good while the database is unchanged (its data version: every write of this process, every
 * commit of another, so a morning's publish or a new subscription ends it) and until the clock
 * passes the next second or the next instant a listing, checkout or reservation falls due (what
 * the reads show depends on the time of day only that finely). The compression middleware keeps
 * the compressed variants by ETag, so they too are made once per entry.
 */
export interface CachedRead {
  body: string;
  etag: string;
  contentType: string;
  cacheControl: string;
  headers: Record<string, string>;
  version: string;
  /** Milliseconds since the epoch (on the app's clock) from which the entry is stale. */
  until: number;
}

export interface ResponseCache {
  /** Whether an operation's answers may be kept: public reads that a shared cache may keep too. */
  keeps(op: Operation): boolean;
  /** The version to note before running a read (a write while it runs makes it unstorable). */
  version(): string;
  get(key: string): CachedRead | undefined;
  set(key: string, versionBefore: string, entry: Omit<CachedRead, "version" | "until">, nextDue: string | undefined): void;
}

export function createResponseCache(ctx: AppContext, maxEntries = 5000): ResponseCache {
  const entries = new LRUCache<string, CachedRead>({ max: maxEntries });
  return {
    keeps: (op) => op.method === "GET" && op.auth !== "admin" && op.cache !== undefined && op.cache !== CACHE.none,
    version: () => dataVersion(ctx.db),
    get(key) {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.version !== dataVersion(ctx.db) || ctx.config.now().getTime() >= hit.until) {
        entries.delete(key);
        return undefined;
      }
      return hit;
    },
    set(key, versionBefore, entry, nextDue) {
      const version = dataVersion(ctx.db);
      // Something wrote while the read ran (it may have read before or after): keep nothing.
      if (version !== versionBefore) return;
      const now = ctx.config.now().getTime();
      const due = nextDue === undefined ? Infinity : Date.parse(nextDue);
      entries.set(key, { ...entry, version, until: Math.min(Math.floor(now / 1000) * 1000 + 1000, due) });
    },
  };
}
