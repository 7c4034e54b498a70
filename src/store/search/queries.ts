import { countIds, highestIds } from "../../lib/bitset.ts";
import { rankCandidates } from "../../core/search/rank.ts";
import { RANK_WINDOW } from "../../contract/search.ts";
import type { ParsedSearch, SearchTerm } from "../../core/search/query.ts";
import { indexableText, plainTextOf } from "../../core/search/text.ts";
import { cachedStatement, type DB } from "../db.ts";
import { matchingSet, releaseBitset } from "./bits.ts";

/**
 * Archive search over the FTS5 table `edition_search` (migration 002).
 *
 * Why not `ORDER BY bm25()` and `count(*)`: both cost time in proportion to the number of editions a
 * term appears in (bm25 re-counts every phrase over the whole index for its IDF), which for common
 * words and prefixes is the whole archive: 25-150 ms per query at 365,000 editions. Instead:
 * - the set of matching editions is built from the kept sets of frequent terms (src/store/search/bits.ts)
 *   and FTS5 for rare ones, so `total` is exact and costs a few bitmap operations;
 * - the newest RANK_WINDOW of them are ranked (src/core/search/rank.ts) from their text;
 * - snippets are made by FTS5 only for the returned page.
 */

/** The token that tags a city's rows in the `place` column. */
export const placeToken = (geoid: string) => `p${geoid.replace(/[^0-9A-Za-z]/g, "")}`;

const SNIPPET_TOKENS = 32;

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

const fts5Term = (t: SearchTerm) => `"${t.words.join(" ")}"${t.prefix ? "*" : ""}`;

// The column filter costs a position check per match; it is only needed when a typed word could be
// a place token (`p` and digits) of the `place` column.
const couldHitPlace = (t: SearchTerm) => t.words.some((w) => /^p\d/i.test(w));

function matchExpression(parsed: ParsedSearch, placeGeoid?: string): string {
  const filter = [...parsed.groups.flat(), ...parsed.excluded].some(couldHitPlace);
  const text = filter ? `{subject body} : (${parsed.expression})` : `(${parsed.expression})`;
  return placeGeoid === undefined ? text : `place : "${placeToken(placeGeoid)}" AND ${text}`;
}

const termMatch = (t: SearchTerm) => (couldHitPlace(t) ? `{subject body} : ${fts5Term(t)}` : fts5Term(t));

/**
 * The best `limit` matching editions, and how many match in all. Runs in one read transaction,
 * so the page and the total come from the same snapshot even while a morning is being stored.
 */
export function searchEditions(db: DB, parsed: ParsedSearch, opts: { placeGeoid?: string; limit: number; rankWindow?: number }): { total: number; hits: SearchHit[] } {
  const match = matchExpression(parsed, opts.placeGeoid);
  const rankWindow = Math.max(opts.rankWindow ?? RANK_WINDOW, opts.limit);
  return db.transaction(() => {
    const matching = matchingSet(db, parsed, termMatch, opts.placeGeoid === undefined ? undefined : `place : "${placeToken(opts.placeGeoid)}"`);
    const total = countIds(matching);
    const ids = highestIds(matching, rankWindow);
    releaseBitset(db, matching);
    const rows = stmt(db, `SELECT s.rowid, e.date, s.subject, s.body FROM edition_search s JOIN editions e ON e.id = s.rowid
      WHERE s.rowid IN (SELECT value FROM json_each(?))`).raw().all(JSON.stringify(ids)) as Array<[number, string, string, string]>;
    const ranked = rankCandidates(rows.map(([id, date, subject, body]) => ({ id, date, columns: [subject, body] })), parsed.groups.flat());

    const details = stmt(db, `
      SELECT e.id, p.slug, p.name AS city, p.state_name AS state, e.date, e.subject
      FROM editions e JOIN places p ON p.geoid = e.place_geoid WHERE e.id = ?`);
    // The rowid is bound as a BigInt: FTS5 drops a `rowid = ?` constraint next to MATCH when the bound
    // value is not an integer (better-sqlite3 binds JS numbers as REAL) and returns the first matching
    // row instead. (A `CAST(? AS INTEGER)` also works, but costs a quarter more per snippet.)
    const snippets = [0, 1].map((column) => stmt(db,
      `SELECT snippet(edition_search, ${column}, char(2), char(3), '…', ${SNIPPET_TOKENS}) FROM edition_search WHERE edition_search MATCH ? AND rowid = ?`,
    ).pluck());
    const hits = ranked.slice(0, opts.limit).map((r) => {
      const hit = details.get(r.id) as Omit<SearchHit, "snippet">;
      // The passage from the text when the text matches, else from the subject.
      const snippet = String(snippets[r.tf[1] > 0 || r.tf[0] === 0 ? 1 : 0].get(match, BigInt(r.id)) ?? "");
      return { ...hit, snippet };
    });
    return { total, hits };
  })();
}
