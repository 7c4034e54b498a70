import { RANK_WINDOW, SUBJECT_WEIGHT, type ParsedSearch } from "../core/search-query.ts";
import { indexableText, plainTextOf } from "../core/search-text.ts";
import { cachedStatement, type DB } from "./db.ts";

/**
 * Archive search over the FTS5 table `edition_search` (migration 002).
 *
 * Why not `ORDER BY bm25()` and `count(*)`: both cost time in proportion to the number of editions a
 * term appears in (bm25 re-counts every phrase over the whole index for its IDF), which for common
 * words and prefixes is the whole archive: 25-100 ms per query at 365,000 editions. Instead:
 * - candidates are the newest RANK_WINDOW matches, which FTS5 finds by walking its posting lists
 *   from the newest rowid and stopping early (well under a millisecond);
 * - they are ranked by BM25 term frequency and length normalisation computed from `highlight()`
 *   (matches in the subject weigh 3x), newest first among equals. When a query matches fewer than
 *   RANK_WINDOW editions this ranks all of them; otherwise the newest RANK_WINDOW;
 * - `total` is exact: free when the window is not full; for one plain word, the FTS5 vocabulary's
 *   document count; otherwise counted once, remembered, and then extended only over editions added
 *   since (rowids only grow; a delete or edit bumps `search_generation` and forgets), so repeating a
 *   query costs what changed since;
 * - snippets are made only for the returned page.
 */

/** The token that tags a city's rows in the `place` column. */
export const placeToken = (geoid: string) => `p${geoid.replace(/[^0-9A-Za-z]/g, "")}`;

export { RANK_WINDOW };
const SNIPPET_TOKENS = 32;
const K1 = 1.2;
const B = 0.75;

// Prepared once per connection: preparing costs about as much as a short query.
const stmt = cachedStatement;

/** Writes an edition's search row; called by insertEdition inside its transaction. */
export function indexEdition(db: DB, e: { id: number; placeGeoid: string; subject: string; markdown: string }): void {
  stmt(db, "INSERT INTO edition_search (rowid, subject, body, place) VALUES (?, ?, ?, ?)")
    .run(e.id, indexableText(e.subject), plainTextOf(e.markdown), placeToken(e.placeGeoid));
}

export interface SearchHit {
  id: number;
  slug: string;
  city: string;
  state: string;
  date: string;
  subject: string;
  /** Plain text with matched terms between MARK_START and MARK_END. */
  snippet: string;
}

interface Candidate { id: number; date: string; tf0: number; len0: number; tf1: number; len1: number; score: number }

type Remembered = { generation: string; upto: number; count: number };
const TOTALS_KEPT = 5000;
const totalsByDb = new WeakMap<DB, Map<string, Remembered>>();

function matchExpression(parsed: ParsedSearch, placeGeoid?: string): string {
  // The column filter costs a position check per match (about 1.5x on common words); it is only
  // needed when a typed word could be a place token (`p` and digits) of the `place` column.
  const couldHitPlace = [...parsed.groups.flat(), ...parsed.excluded].some((t) => t.words.some((w) => /^p\d/i.test(w)));
  const text = couldHitPlace ? `{subject body} : (${parsed.expression})` : `(${parsed.expression})`;
  return placeGeoid === undefined ? text : `place : "${placeToken(placeGeoid)}" AND ${text}`;
}

function bm25Tf(tf: number, len: number, avg: number): number {
  return tf === 0 ? 0 : (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / (avg || 1)));
}

/**
 * A one-word search without a city: its document count from the FTS5 vocabulary, several times
 * cheaper than counting matches. Only for plain ASCII words, whose token is simply the lowercase
 * word, and never for a word shaped like a place token (those are counted in the `place` column).
 */
function singleWordCount(db: DB, parsed: ParsedSearch, placeGeoid?: string): number | undefined {
  if (placeGeoid !== undefined || parsed.excluded.length > 0 || parsed.groups.length !== 1 || parsed.groups[0].length !== 1) return undefined;
  const [term] = parsed.groups[0];
  if (term.prefix || term.words.length !== 1 || !/^[A-Za-z0-9]+$/.test(term.words[0]) || /^p\d+$/i.test(term.words[0])) return undefined;
  const docs = stmt(db, "SELECT doc FROM edition_search_terms WHERE term = ?").pluck().get(term.words[0].toLowerCase());
  return docs === undefined ? undefined : Number(docs);
}

/**
 * Exact number of matching editions, remembered per expression and extended by newer rowids.
 * Called inside the search's read transaction, so max(rowid) and the counts share one snapshot.
 */
function countMatches(db: DB, match: string, coldCount: () => number): number {
  const generation = String(stmt(db, "SELECT value FROM meta WHERE key = 'search_generation'").pluck().get() ?? "0");
  const upto = Number(stmt(db, "SELECT max(rowid) FROM edition_search").pluck().get() ?? 0);
  let memo = totalsByDb.get(db);
  if (!memo) totalsByDb.set(db, (memo = new Map()));
  const known = memo.get(match);
  let count: number;
  if (known && known.generation === generation && known.upto <= upto) {
    count = known.count + (known.upto === upto ? 0 : Number(stmt(db,
      "SELECT count(*) FROM edition_search WHERE edition_search MATCH ? AND rowid > ? AND rowid <= ?",
    ).pluck().get(match, known.upto, upto)));
  } else {
    count = coldCount();
  }
  memo.delete(match); // re-inserted last: the Map's order is least recently used first
  memo.set(match, { generation, upto, count });
  if (memo.size > TOTALS_KEPT) memo.delete(memo.keys().next().value!);
  return count;
}

/**
 * The best `limit` matching editions, and how many match in all. Runs in one read transaction,
 * so the page and the total come from the same snapshot even while a morning is being stored.
 */
export function searchEditions(db: DB, parsed: ParsedSearch, opts: { placeGeoid?: string; limit: number; rankWindow?: number }): { total: number; hits: SearchHit[] } {
  const match = matchExpression(parsed, opts.placeGeoid);
  const rankWindow = Math.max(opts.rankWindow ?? RANK_WINDOW, opts.limit);
  return db.transaction(() => {
    // Term frequencies come from counting highlight marks in SQL, so no text crosses into JS.
    const rows = stmt(db, `
      SELECT m.id, e.date,
             length(m.h0) - length(replace(m.h0, char(2), '')) AS tf0, length(m.h0) AS len0,
             length(m.h1) - length(replace(m.h1, char(2), '')) AS tf1, length(m.h1) AS len1
      FROM (SELECT rowid AS id,
                   highlight(edition_search, 0, char(2), char(3)) AS h0,
                   highlight(edition_search, 1, char(2), char(3)) AS h1
            FROM edition_search WHERE edition_search MATCH ? ORDER BY rowid DESC LIMIT ?) AS m
      JOIN editions e ON e.id = m.id`).all(match, rankWindow + 1) as Candidate[];
    const total = rows.length <= rankWindow ? rows.length : countMatches(db, match, () =>
      singleWordCount(db, parsed, opts.placeGeoid)
      ?? Number(stmt(db, "SELECT count(*) FROM edition_search WHERE edition_search MATCH ?").pluck().get(match)));
    const window = rows.slice(0, rankWindow);
    const avg0 = window.reduce((s, r) => s + r.len0, 0) / (window.length || 1);
    const avg1 = window.reduce((s, r) => s + r.len1, 0) / (window.length || 1);
    for (const r of window) r.score = SUBJECT_WEIGHT * bm25Tf(r.tf0, r.len0, avg0) + bm25Tf(r.tf1, r.len1, avg1);
    window.sort((a, b) => b.score - a.score || (a.date < b.date ? 1 : a.date > b.date ? -1 : b.id - a.id));

    const details = stmt(db, `
      SELECT e.id, p.slug, p.name AS city, p.state_name AS state, e.date, e.subject
      FROM editions e JOIN places p ON p.geoid = e.place_geoid WHERE e.id = ?`);
    const snippets = [0, 1].map((column) => stmt(db,
      `SELECT snippet(edition_search, ${column}, char(2), char(3), '…', ${SNIPPET_TOKENS}) FROM edition_search WHERE edition_search MATCH ? AND rowid = ?`,
    ).pluck());
    const hits = window.slice(0, opts.limit).map((r) => {
      const hit = details.get(r.id) as Omit<SearchHit, "snippet">;
      // The passage from the text when the text matches, else from the subject.
      const snippet = String(snippets[r.tf1 > 0 || r.tf0 === 0 ? 1 : 0].get(match, r.id) ?? "");
      return { ...hit, snippet };
    });
    return { total, hits };
  })();
}
