import type { SearchTerm } from "./search-query.ts";

/**
 * Which search terms get a kept set of matching editions (src/store/search-bits.ts): frequent
 * words, phrases of up to MAX_PHRASE_WORDS words, and word prefixes. A key is the term's FTS5
 * expression (`"rain"`, `"partly cloudy"`, `"sp"*`), so the set kept under it is, by construction,
 * exactly what FTS5 matches for it. Only plain ASCII letters and digits form keys: their FTS5
 * tokens are just the lowercased words, so every spelling of a term maps to one key.
 */

export const MAX_PHRASE_WORDS = 4;
export const MIN_KEY_PREFIX = 2;
export const MAX_KEY_PREFIX = 8;

const KEY_WORD = /^[a-z0-9]+$/;
// Words shaped like a city's place token (`p` + GEOID) also match the `place` column: never kept.
const PLACE_LIKE = /^p\d/;

const keyOf = (words: string[], prefix: boolean) => `"${words.join(" ")}"${prefix ? "*" : ""}`;

/** The key of a typed term, or undefined when it can have none. */
export function termKey(t: Pick<SearchTerm, "words" | "prefix">): string | undefined {
  const words = t.words.map((w) => w.toLowerCase());
  if (words.length > MAX_PHRASE_WORDS || (t.prefix && words.length > 1)) return undefined;
  if (!words.every((w) => KEY_WORD.test(w) && !PLACE_LIKE.test(w))) return undefined;
  if (t.prefix && (words[0].length < MIN_KEY_PREFIX || words[0].length > MAX_KEY_PREFIX)) return undefined;
  return keyOf(words, t.prefix);
}

/** Every key one column's tokens belong to: its words, runs of up to MAX_PHRASE_WORDS words, and prefixes. */
export function keysOfTokens(tokens: string[], into: Set<string> = new Set()): Set<string> {
  const ok = tokens.map((w) => KEY_WORD.test(w) && !PLACE_LIKE.test(w));
  for (let i = 0; i < tokens.length; i++) {
    if (!ok[i]) continue;
    const w = tokens[i];
    into.add(`"${w}"`);
    for (let n = MIN_KEY_PREFIX; n <= Math.min(w.length, MAX_KEY_PREFIX); n++) into.add(`"${w.slice(0, n)}"*`);
    let run = w;
    for (let n = 1; n < MAX_PHRASE_WORDS && i + n < tokens.length && ok[i + n]; n++) {
      run += ` ${tokens[i + n]}`;
      into.add(`"${run}"`);
    }
  }
  return into;
}
