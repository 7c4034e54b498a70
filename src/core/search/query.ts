import { MAX_TERMS, MIN_PREFIX_LENGTH } from "../../contract/search.ts";

/**
 * The archive search syntax, turned into a safe SQLite FTS5 MATCH expression.
 *
 *   rain snow          both words (every word must match)
 *   "partly cloudy"    the exact phrase
 *   rain OR snow       either word (OR joins the terms on each side; a dangling OR is the word "or")
 *   -rain              editions without the word (a query needs at least one term that is not excluded)
 *   sun*               words starting with "sun" (at least 2 letters before the *)
 *
 * Any other punctuation separates words, an unclosed quote is ignored, and user text only ever
 * reaches FTS5 inside double-quoted strings, so no input can form FTS5 syntax of its own.
 */


export interface SearchTerm {
  /** The words of the term, as typed (FTS5 folds case and diacritics). More than one: a phrase. */
  words: string[];
  prefix: boolean;
  excluded: boolean;
}

export interface ParsedSearch {
  /** FTS5 expression, without a column filter (the store adds it). */
  expression: string;
  /** Groups that must all match; the terms within a group are alternatives (OR). */
  groups: SearchTerm[][];
  excluded: SearchTerm[];
}

export type SearchParse = { ok: true; query: ParsedSearch } | { ok: false; message: string };

type Lexeme = { kind: "term"; term: SearchTerm } | { kind: "or"; raw: string };

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Splits the input into terms and OR operators. */
function lex(q: string): Lexeme[] | string {
  const out: Lexeme[] = [];
  let negateNext = false;
  let i = 0;
  while (i < q.length) {
    const c = q[i];
    if (/\s/u.test(c)) { i++; continue; }
    // A term starts with optional - (exclude) and is either "a phrase" or a bare run of characters.
    let j = i;
    let excluded = negateNext;
    while (q[j] === "-" || q[j] === "+") { if (q[j] === "-") excluded = true; j++; }
    if (q[j] === "\"" && q.indexOf("\"", j + 1) !== -1) {
      const close = q.indexOf("\"", j + 1);
      let k = close + 1;
      let prefix = false;
      while (q[k] === "*") { prefix = true; k++; }
      const words = wordsOf(q.slice(j + 1, close));
      if (words.length > 0) out.push({ kind: "term", term: { words, prefix, excluded } });
      negateNext = false;
      i = k;
      continue;
    }
    if (q[j] === "\"") j++; // unclosed quote: ignored
    let k = j;
    while (k < q.length && !/\s/u.test(q[k]) && q[k] !== "\"") k++;
    let raw = q.slice(j, k);
    i = k;
    if (raw === "OR" && !excluded) { out.push({ kind: "or", raw }); continue; }
    if (raw === "AND" && !excluded) continue; // every word must match anyway
    if (raw === "NOT" && !excluded) { negateNext = true; continue; }
    let prefix = false;
    if (/\*+$/.test(raw)) { prefix = true; raw = raw.replace(/\*+$/, ""); }
    const words = wordsOf(raw);
    if (words.length === 0) continue; // punctuation only
    if (prefix && [...words.at(-1)!].length < MIN_PREFIX_LENGTH) {
      return `"${raw}*": a prefix needs at least ${MIN_PREFIX_LENGTH} letters or digits before the *.`;
    }
    out.push({ kind: "term", term: { words, prefix, excluded } });
    negateNext = false;
  }
  return out;
}

function fts5Term(t: SearchTerm): string {
  // Words contain only letters, digits and marks, so they need no escaping inside the quotes.
  return `"${t.words.join(" ")}"${t.prefix ? "*" : ""}`;
}

const orWord = (): SearchTerm => ({ words: ["or"], prefix: false, excluded: false });

export function parseSearchQuery(q: string): SearchParse {
  const lexed = lex(q);
  if (typeof lexed === "string") return { ok: false, message: lexed };

  const groups: SearchTerm[][] = [];
  const excluded: SearchTerm[] = [];
  let joinNext = false; // the previous lexeme was an OR that joined a positive term on its left
  for (let n = 0; n < lexed.length; n++) {
    const lx = lexed[n];
    if (lx.kind === "or") {
      const left = lexed[n - 1];
      const right = lexed[n + 1];
      const joins = left?.kind === "term" && !left.term.excluded && right?.kind === "term" && !right.term.excluded;
      if (joins) joinNext = true;
      else groups.push([orWord()]);
      continue;
    }
    const t = lx.term;
    if (t.excluded) { excluded.push(t); continue; }
    if (joinNext && groups.length > 0) groups.at(-1)!.push(t);
    else groups.push([t]);
    joinNext = false;
  }

  const termCount = groups.reduce((sum, g) => sum + g.length, 0) + excluded.length;
  if (termCount === 0) return { ok: false, message: "The query has no words to search for: use letters or digits." };
  if (groups.length === 0) return { ok: false, message: "The query only excludes terms (-word): add at least one word to search for." };
  if (termCount > MAX_TERMS) return { ok: false, message: `The query has ${termCount} terms; at most ${MAX_TERMS} are allowed.` };

  const positive = groups.map((g) => (g.length === 1 ? fts5Term(g[0]) : `(${g.map(fts5Term).join(" OR ")})`)).join(" AND ");
  const expression = excluded.length === 0
    ? positive
    : `(${positive}) NOT (${excluded.map(fts5Term).join(" OR ")})`;
  return { ok: true, query: { expression, groups, excluded } };
}
