import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { addIds, andInto, andNotInto, clearRange, countIds, emptyBitset, hasId, highestIds, orInto } from "../../src/lib/bitset.ts";
import { KeyMatcher, keysOfTokens, termKey } from "../../src/core/search/keys.ts";
import { openDatabase } from "../../src/store/db.ts";
import { textTokens } from "../../src/store/search/tokens.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-tokens-"));
const db = openDatabase(path.join(dir, "t.db"));
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** FTS5's tokens of a text, read back from an index with the archive's tokenizer. */
function fts5Tokens(text: string): string[] {
  db.exec("DELETE FROM edition_search");
  db.prepare("INSERT INTO edition_search (rowid, subject, body, place) VALUES (1, ?, '', '')").run(text);
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.probe USING fts5vocab(main, edition_search, instance)");
  return db.prepare("SELECT term FROM temp.probe WHERE col = 'subject' ORDER BY offset").pluck().all() as string[];
}

describe("tokens", () => {
  it("splits pure ASCII exactly as the index's FTS5 tokenizer does, for every ASCII character", () => {
    const all = Array.from({ length: 126 }, (_, i) => String.fromCharCode(i + 1)).join("");
    for (let i = 0; i < all.length; i++) {
      const text = `ab${all[i]}Cd 7${all[i]}x`;
      expect(textTokens(db, text), JSON.stringify(text)).toEqual(fts5Tokens(text));
    }
    const prose = "Sunrise at 7:02 -- Mayor O'Brien's \"town-hall\" meeting; 50% rain (or snow?) & 3.5in. e-mail: a_b@c.org";
    expect(textTokens(db, prose)).toEqual(fts5Tokens(prose));
  });

  it("gives runs with other characters to FTS5's tokenizer itself: folding, marks, separators", () => {
    for (const text of ["Café Olé in Cañon City", "Straße øre łódź ǅ İstanbul", "x\u0301y fin\u00adal ①② 7°F–9°F a\u00a0b", "🙂emoji🙂 and 日本語"]) {
      expect(textTokens(db, text), text).toEqual(fts5Tokens(text));
    }
  });
});

describe("search keys", () => {
  it("keys a column's words, its runs of up to four words and its word prefixes", () => {
    const keys = keysOfTokens(["partly", "cloudy", "p0644000", "and", "cold", "at", "the", "park"]);
    expect(keys).toContain('"partly"');
    expect(keys).toContain('"partly cloudy"');
    expect(keys).toContain('"and cold at the"'); // runs of up to four words
    expect(keys).toContain('"cold at the park"');
    expect(keys).not.toContain('"and cold at the park"');
    expect(keys).toContain('"pa"*');
    expect(keys).toContain('"partly"*');
    // A word shaped like a place token never forms a key, nor does a run across it.
    expect([...keys].some((k) => k.includes("p0644000") || k.includes('"p0'))).toBe(false);
    expect(keys).not.toContain('"cloudy and"');
  });

  it("maps every spelling of a typed term to one key, and terms that cannot have one to none", () => {
    expect(termKey({ words: ["Partly", "CLOUDY"], prefix: false })).toBe('"partly cloudy"');
    expect(termKey({ words: ["Sp"], prefix: true })).toBe('"sp"*');
    expect(termKey({ words: ["café"], prefix: false })).toBeUndefined();
    expect(termKey({ words: ["a", "b", "c", "d", "e"], prefix: false })).toBeUndefined();
    expect(termKey({ words: ["a", "b"], prefix: true })).toBeUndefined();
    expect(termKey({ words: ["P0644000"], prefix: false })).toBeUndefined();
    expect(termKey({ words: ["abcdefghi"], prefix: true })).toBeUndefined();
  });

  it("finds exactly the kept keys a column's tokens belong to, as building every key would", () => {
    const vocab = ["rain", "rainy", "partly", "cloudy", "the", "park", "p0644000", "at", "a", "market", "farmers"];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const columns = Array.from({ length: 60 }, () => Array.from({ length: 30 }, () => vocab[Math.floor(next() * vocab.length)]));
    const all = [...new Set(columns.flatMap((c) => [...keysOfTokens(c)]))];
    const kept = new Map(all.filter(() => next() < 0.4).map((k, i) => [k, i] as [string, number]));
    const matcher = new KeyMatcher(kept);
    for (const c of columns) {
      const expected = [...keysOfTokens(c)].filter((k) => kept.has(k)).map((k) => kept.get(k)!).sort((a, b) => a - b);
      expect([...matcher.idsOf(c, new Set())].sort((a, b) => a - b)).toEqual(expected);
    }
  });
});

describe("bitsets", () => {
  it("adds, combines, counts and lists the highest ids", () => {
    const a = addIds(emptyBitset(200), [0, 1, 31, 32, 33, 64, 150, 200]);
    const b = addIds(emptyBitset(100), [1, 32, 64, 99]);
    expect(countIds(a)).toBe(8);
    expect(highestIds(a, 3)).toEqual([200, 150, 64]);
    expect(countIds(andInto(Uint32Array.from(a), b))).toBe(3);
    expect(highestIds(orInto(Uint32Array.from(a), b), 10)).toEqual([200, 150, 99, 64, 33, 32, 31, 1, 0]);
    expect(highestIds(andNotInto(Uint32Array.from(a), b), 10)).toEqual([200, 150, 33, 31, 0]);
    const c = Uint32Array.from(a);
    clearRange(c, 31, 150);
    expect(highestIds(c, 10)).toEqual([200, 1, 0]);
    expect(hasId(c, 200)).toBe(true);
    expect(hasId(c, 5000)).toBe(false);
  });
});
