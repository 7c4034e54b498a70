import type { SearchTerm } from "./query.ts";

/**
 * Which search terms get a kept set of matching editions (src/store/search/bits.ts): frequent
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

/**
 * Finds which of a fixed set of keys a column's tokens belong to, without building every candidate
 * key: a token's word and prefix keys are looked up once per distinct token, and phrases only from
 * tokens that start a kept one. (keysOfTokens builds about ten strings per token; the refresh reads
 * every new edition, so this is most of its time.)
 */
export class KeyMatcher {
  readonly #ids: Map<string, number>;
  readonly #single = new Map<string, number[]>();
  readonly #phraseStarts = new Set<string>();

  constructor(ids: Map<string, number>) {
    this.#ids = ids;
    for (const key of ids.keys()) if (!key.endsWith("*") && key.includes(" ")) this.#phraseStarts.add(key.slice(1, key.indexOf(" ")));
  }

  idsOf(tokens: string[], into: Set<number>): Set<number> {
    for (let i = 0; i < tokens.length; i++) {
      const w = tokens[i];
      let single = this.#single.get(w);
      if (!single) {
        single = [`"${w}"`, ...Array.from({ length: Math.max(0, Math.min(w.length, MAX_KEY_PREFIX) - MIN_KEY_PREFIX + 1) }, (_, n) => `"${w.slice(0, MIN_KEY_PREFIX + n)}"*`)]
          .map((k) => this.#ids.get(k)).filter((id): id is number => id !== undefined);
        this.#single.set(w, single);
      }
      for (const id of single) into.add(id);
      if (!this.#phraseStarts.has(w)) continue;
      let run = w;
      for (let n = 1; n < MAX_PHRASE_WORDS && i + n < tokens.length; n++) {
        run += ` ${tokens[i + n]}`;
        const id = this.#ids.get(`"${run}"`);
        if (id !== undefined) into.add(id);
      }
    }
    return into;
  }
}
