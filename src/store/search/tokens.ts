import { cachedStatement as stmt, connectionCache, type DB } from "../db.ts";

/**
 * FTS5's own tokens of a text, as the archive index (unicode61, remove_diacritics 2) makes them.
 *
 * Every ASCII character other than a letter or digit separates tokens there (checked for each one
 * by test/unit/search-sets.test.ts), so the text splits at those into runs. A run of ASCII letters
 * and digits is one token, lowercased; a run with other characters (`Café`, `7°F`, `Cañon`) goes
 * through the same tokenizer in a scratch FTS5 table, remembered per run, so folding and word
 * boundaries are exactly the index's without writing our own Unicode tables.
 */

const RUN = /[A-Za-z0-9\u0080-\uffff]+/g;
const ASCII_WORD = /^[A-Za-z0-9]+$/;
const RUNS_KEPT = 20_000;

function tokenizeRun(db: DB, run: string): string[] {
  // Kept on the connection: the scratch tables that compute it are the connection's own.
  const memo = connectionCache(db, "tokenRuns", () => new Map<string, string[]>());
  const known = memo.get(run);
  if (known) return known;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_tokenizer USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_tokenizer_terms USING fts5vocab(temp, search_tokenizer, instance);`);
  stmt(db, "INSERT INTO temp.search_tokenizer (rowid, text) VALUES (1, ?)").run(run);
  const tokens = stmt(db, "SELECT term FROM temp.search_tokenizer_terms ORDER BY offset").pluck().all() as string[];
  stmt(db, "DELETE FROM temp.search_tokenizer").run();
  if (memo.size >= RUNS_KEPT) memo.clear();
  memo.set(run, tokens);
  return tokens;
}

export function textTokens(db: DB, text: string): string[] {
  const out: string[] = [];
  for (const [run] of text.matchAll(RUN)) {
    if (ASCII_WORD.test(run)) out.push(run.toLowerCase());
    else for (const t of tokenizeRun(db, run)) out.push(t);
  }
  return out;
}

/** The tokens of an edition's subject and text. */
export function tokensOf(db: DB, subject: string, body: string): [string[], string[]] {
  return [textTokens(db, subject), textTokens(db, body)];
}
