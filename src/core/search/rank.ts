import { SUBJECT_WEIGHT } from "../../contract/search.ts";
import type { SearchTerm } from "./query.ts";

/**
 * Ranking of the candidate editions of a search (the newest RANK_WINDOW matches): BM25 term
 * frequency with length normalisation per column, a match in the subject weighing SUBJECT_WEIGHT
 * times one in the text, newest first among equals.
 *
 * Term frequencies are counted on the text with one regular expression per term (case-insensitive,
 * whole words, a phrase's words in order, a prefix's word continued): about 2 µs per edition and
 * term, where re-tokenising the 100 candidates (FTS5's `highlight()`, or our own tokenizer) took
 * 2-4 ms. It can differ from FTS5 only in folding diacritics (`cafe` does not count `Café`), which
 * moves a rank, never what matches: the candidates are the editions FTS5 matched.
 */

const K1 = 1.2;
const B = 0.75;
const NOT_WORD_BEFORE = "(?<![\\p{L}\\p{N}\\p{M}])";
const NOT_WORD_AFTER = "(?![\\p{L}\\p{N}\\p{M}])";

export interface Candidate {
  id: number;
  date: string;
  /** The subject and the text. */
  columns: [string, string];
}

export interface Ranked {
  id: number;
  date: string;
  /** Matches in the subject and in the text. */
  tf: [number, number];
  score: number;
}

/** A term as a pattern over text. Words hold only letters, digits and marks (see search-query.ts). */
export function termPattern(t: Pick<SearchTerm, "words" | "prefix">): RegExp {
  const words = t.words.map((w) => w.replace(/[^\p{L}\p{N}\p{M}]/gu, ""));
  const tail = t.prefix ? "[\\p{L}\\p{N}\\p{M}]*" : "";
  return new RegExp(`${NOT_WORD_BEFORE}${words.join("[^\\p{L}\\p{N}\\p{M}]+")}${tail}${NOT_WORD_AFTER}`, "giu");
}

function count(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(text) !== null) n++;
  return n;
}

function bm25Tf(tf: number, len: number, avg: number): number {
  return tf === 0 ? 0 : (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / (avg || 1)));
}

export function rankCandidates(candidates: Candidate[], terms: Array<Pick<SearchTerm, "words" | "prefix">>): Ranked[] {
  const patterns = terms.map(termPattern);
  const avg = [0, 1].map((c) => candidates.reduce((s, d) => s + d.columns[c].length, 0) / (candidates.length || 1));
  return candidates.map((d): Ranked => {
    const tf = [0, 1].map((c) => patterns.reduce((s, p) => s + count(d.columns[c], p), 0)) as [number, number];
    const score = SUBJECT_WEIGHT * bm25Tf(tf[0], d.columns[0].length, avg[0]) + bm25Tf(tf[1], d.columns[1].length, avg[1]);
    return { id: d.id, date: d.date, tf, score };
  }).sort((a, b) => b.score - a.score || (a.date < b.date ? 1 : a.date > b.date ? -1 : b.id - a.id));
}
