import { addIds, andInto, andNotInto, clearRange, emptyBitset, orInto, type Bitset } from "../../lib/bitset.ts";
import { KeyMatcher, keysOfTokens, termKey } from "../../core/search/keys.ts";
import type { ParsedSearch, SearchTerm } from "../../core/search/query.ts";
import { cachedStatement, connectionCache, type DB } from "../db.ts";
import { tokensOf } from "./tokens.ts";
import { getMeta } from "../platform/meta.ts";

/**
 * Kept sets of matching editions for frequent search terms (migration 006): counting a query's
 * matches exactly becomes a few bitmap operations, however long the terms' posting lists are.
 *
 * A key's set holds the editions FTS5 matches for it with id <= `search_bits_upto`; editions
 * stored since are matched through FTS5 at query time (cheap: one morning at most, once the
 * refresh runs after each morning). `refreshSearchBits` brings every set up to the newest edition
 * in steps, each step one transaction, and keeps new sets for terms that became frequent.
 */

const CHUNK_BITS = 14;
const CHUNK_IDS = 1 << CHUNK_BITS;
const KEY_STRIDE = 2 ** 20; // search_bits rowid = key id * KEY_STRIDE + chunk
const WORDS_PER_CHUNK = CHUNK_IDS / 32;

const stmt = cachedStatement;

export interface RefreshOptions {
  /** Editions brought in per transaction (default 20,000). */
  step?: number;
  /** Share of the sampled editions a term must appear in to get a kept set (default 0.03). */
  minShare?: number;
  /** Editions a step must sample before it judges which terms are frequent (default 200). */
  minSample?: number;
  /** The newest editions of each step in which frequent terms are counted (default 500). */
  sampleSize?: number;
  /** At most this many kept sets (default 6,000). */
  maxKeys?: number;
  /** Stop after this many steps (default: until up to date). */
  maxSteps?: number;
}

export interface RefreshResult {
  /** Editions brought into the kept sets. */
  editions: number;
  keysAdded: number;
  keys: number;
  ms: number;
}

export function searchBitsUpto(db: DB): number {
  return Number(getMeta(db, "search_bits_upto") ?? 0);
}

export function newestIndexedId(db: DB): number {
  return Number(stmt(db, "SELECT max(rowid) FROM edition_search").pluck().get() ?? 0);
}

/** Every id matching an FTS5 term expression, ascending. */
export function matchingIds(db: DB, match: string): number[] {
  return stmt(db, "SELECT rowid FROM edition_search WHERE edition_search MATCH ? ORDER BY rowid").pluck().all(match) as number[];
}

/**
 * Ids matching an FTS5 term expression up to `to` (ascending), or above `from` (newest first).
 * FTS5 walks a posting list in rowid order and stops where we stop reading, whereas a rowid range
 * in the WHERE clause still reads the whole list (19 ms for a word in all 366,000 editions,
 * against 0.4 ms for its newest 1,000). Reading row by row costs about 0.5 µs a row more than
 * `all()`, so this is for stopping early only.
 */
export function matchingIdsUpTo(db: DB, match: string, to: number): number[] {
  const out: number[] = [];
  for (const id of stmt(db, "SELECT rowid FROM edition_search WHERE edition_search MATCH ? ORDER BY rowid").pluck().iterate(match) as Iterable<number>) {
    if (id > to) break;
    out.push(id);
  }
  return out;
}

export function matchingIdsAbove(db: DB, match: string, from: number): number[] {
  const out: number[] = [];
  for (const id of stmt(db, "SELECT rowid FROM edition_search WHERE edition_search MATCH ? ORDER BY rowid DESC").pluck().iterate(match) as Iterable<number>) {
    if (id <= from) break;
    out.push(id);
  }
  return out;
}

function keyId(db: DB, key: string): number | undefined {
  return stmt(db, "SELECT id FROM search_keys WHERE key = ?").pluck().get(key) as number | undefined;
}

/**
 * The kept set of `key` with ids up to `upto`, in a bitset able to hold ids up to `maxId`, or
 * undefined when the key has no kept set.
 */
export function keptSet(db: DB, key: string, upto: number, maxId: number): Bitset | undefined {
  const id = keyId(db, key);
  if (id === undefined) return undefined;
  const set = takeBitset(db, maxId);
  const base = id * KEY_STRIDE;
  const rows = stmt(db, "SELECT id, bits FROM search_bits WHERE id BETWEEN ? AND ?").raw().all(base, base + (upto >>> CHUNK_BITS)) as Array<[number, Buffer]>;
  const bytes = new Uint8Array(set.buffer);
  for (const [rowid, bits] of rows) {
    // Byte copies: a Buffer from SQLite need not be 4-byte aligned for a Uint32Array view.
    const at = (rowid - base) * WORDS_PER_CHUNK * 4;
    bytes.set(at + bits.length <= bytes.length ? bits : bits.subarray(0, bytes.length - at), at);
  }
  clearRange(set, upto + 1, (set.length << 5) - 1);
  return set;
}

function writeChunk(db: DB, rowid: number, words: Uint32Array): void {
  stmt(db, "INSERT INTO search_bits (id, bits) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET bits = excluded.bits")
    .run(rowid, Buffer.from(words.buffer, words.byteOffset, words.byteLength));
}

/** Replaces the key's members in from < id <= to with `ids`, rewriting only the chunks that range touches. */
function updateRange(db: DB, keyRowid: number, from: number, to: number, ids: number[]): void {
  const base = keyRowid * KEY_STRIDE;
  const read = stmt(db, "SELECT bits FROM search_bits WHERE id = ?").pluck();
  let i = 0;
  for (let chunk = (from + 1) >>> CHUNK_BITS; chunk <= to >>> CHUNK_BITS; chunk++) {
    const old = read.get(base + chunk) as Buffer | undefined;
    const words = new Uint32Array(WORDS_PER_CHUNK);
    if (old) new Uint8Array(words.buffer).set(old);
    const lo = chunk * CHUNK_IDS;
    clearRange(words, Math.max(from + 1, lo) - lo, Math.min(to, lo + CHUNK_IDS - 1) - lo);
    for (; i < ids.length && ids[i] < lo + CHUNK_IDS; i++) words[(ids[i] - lo) >>> 5] |= 1 << ((ids[i] - lo) & 31);
    if (old || words.some((w) => w !== 0)) writeChunk(db, base + chunk, words);
  }
}

/**
 * One step of the refresh: every kept set gains its members among from < id <= to, read off each
 * edition's tokens (one pass over the texts, whatever the number of keys), and the terms frequent
 * in the newest of them get a kept set, filled from FTS5 for the whole archive.
 */
function refreshRange(db: DB, from: number, to: number, o: Required<RefreshOptions>): number {
  const keyIds = new Map(stmt(db, "SELECT key, id FROM search_keys").raw().all() as Array<[string, number]>);
  const members = new Map<number, number[]>();
  const counts = new Map<string, number>();
  const sampleFrom = to - o.sampleSize;
  let sampled = 0;
  const matcher = new KeyMatcher(keyIds);
  const keys = new Set<string>();
  const ids = new Set<number>();
  const rows = stmt(db, "SELECT rowid, subject, body FROM edition_search WHERE rowid > ? AND rowid <= ? ORDER BY rowid").raw().all(from, to) as Array<[number, string, string]>;
  for (const [rowid, subject, body] of rows) {
    ids.clear();
    const columns = tokensOf(db, subject, body);
    for (const tokens of columns) matcher.idsOf(tokens, ids);
    for (const id of ids) {
      const list = members.get(id);
      if (list) list.push(rowid); else members.set(id, [rowid]);
    }
    // The newest editions of the step are the sample in which new frequent terms are counted.
    if (rowid <= sampleFrom) continue;
    sampled++;
    keys.clear();
    for (const tokens of columns) keysOfTokens(tokens, keys);
    for (const k of keys) if (!keyIds.has(k)) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  for (const id of keyIds.values()) updateRange(db, id, from, to, members.get(id) ?? []);

  if (sampled < o.minSample) return 0;
  const min = Math.ceil(o.minShare * sampled);
  const fresh = [...counts].filter(([, n]) => n >= min).sort((a, b) => b[1] - a[1]).slice(0, Math.max(0, o.maxKeys - keyIds.size));
  for (const [key] of fresh) {
    const id = Number(stmt(db, "INSERT INTO search_keys (key) VALUES (?)").run(key).lastInsertRowid);
    updateRange(db, id, 0, to, matchingIdsUpTo(db, key, to));
  }
  return fresh.length;
}

/**
 * Brings every kept set up to the newest indexed edition, `step` editions per transaction, and
 * keeps a set for each term that became frequent (filled from FTS5 for the whole archive). Safe to
 * run at any time and from several processes: each step re-reads the watermark under the write lock.
 */
export function refreshSearchBits(db: DB, opts: RefreshOptions = {}): RefreshResult {
  const o: Required<RefreshOptions> = { step: 20_000, minShare: 0.03, minSample: 200, sampleSize: 500, maxKeys: 6_000, maxSteps: Infinity, ...opts };
  const started = performance.now();
  const result: RefreshResult = { editions: 0, keysAdded: 0, keys: 0, ms: 0 };
  const step = db.transaction(() => {
    const from = searchBitsUpto(db);
    const to = Math.min(newestIndexedId(db), from + o.step);
    if (to <= from) return false;
    result.keysAdded += refreshRange(db, from, to, o);
    stmt(db, "UPDATE meta SET value = ? WHERE key = 'search_bits_upto'").run(String(to));
    result.editions += to - from;
    return true;
  });
  for (let n = 0; n < o.maxSteps && step.immediate(); n++) { /* next step */ }
  result.keys = Number(stmt(db, "SELECT count(*) FROM search_keys").pluck().get());
  result.ms = performance.now() - started;
  return result;
}

/**
 * The exact set of editions a parsed query matches, built from kept sets where its terms have one
 * (plus FTS5 for editions newer than the sets) and from FTS5 for the rest, which are rare terms
 * with short posting lists, or terms with no key (then FTS5 does all the work, as without sets).
 * `termMatch` gives a term's own FTS5 expression, column filter included.
 */
export function matchingSet(db: DB, parsed: ParsedSearch, termMatch: (t: SearchTerm) => string, placeMatch?: string): Bitset {
  const upto = searchBitsUpto(db);
  const maxId = newestIndexedId(db);
  const setOf = (t: SearchTerm): Bitset => {
    const key = termKey(t);
    const kept = key === undefined ? undefined : keptSet(db, key, upto, maxId);
    if (kept) return upto >= maxId ? kept : addIds(kept, matchingIdsAbove(db, key!, upto));
    return addIds(takeBitset(db, maxId), matchingIds(db, termMatch(t)));
  };
  // Each operand goes back to the pool once folded into the result.
  const fold = (op: (a: Bitset, b: Bitset) => Bitset) => (a: Bitset, b: Bitset) => { op(a, b); releaseBitset(db, b); return a; };
  const groupSet = (group: SearchTerm[]) => group.map(setOf).reduce(fold(orInto));
  const result = parsed.groups.map(groupSet).reduce(fold(andInto));
  for (const t of parsed.excluded) fold(andNotInto)(result, setOf(t));
  if (placeMatch !== undefined) fold(andInto)(result, addIds(takeBitset(db, maxId), matchingIds(db, placeMatch)));
  return result;
}

/**
 * Bitsets reused across queries on one connection. At a million editions each is 125 KB, one or more
 * per term of every query: allocating them afresh was most of the search's garbage collection.
 * A set taken must be given back (`releaseBitset`) once its query is done with it.
 */
function bitsetPool(db: DB): Bitset[] {
  return connectionCache(db, "search-bitsets", () => [] as Bitset[]);
}

function takeBitset(db: DB, maxId: number): Bitset {
  const words = (maxId >>> 5) + 1;
  const pool = bitsetPool(db);
  for (let set = pool.pop(); set; set = pool.pop()) {
    // A set of another size (the archive grew) is dropped; the rest are cleared and reused.
    if (set.length === words) return set.fill(0);
  }
  return emptyBitset(maxId);
}

/** Gives a set from `matchingSet` back to its connection's pool (at most 16 are kept). */
export function releaseBitset(db: DB, set: Bitset): void {
  const pool = bitsetPool(db);
  if (pool.length < 16 && !pool.includes(set)) pool.push(set);
}
