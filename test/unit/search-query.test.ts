import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MAX_TERMS } from "../../src/contract/search.ts";
import { parseSearchQuery } from "../../src/core/search/query.ts";
import { plainTextOf, snippetToHtml } from "../../src/core/search/text.ts";

const expr = (q: string) => {
  const r = parseSearchQuery(q);
  if (!r.ok) throw new Error(r.message);
  return r.query.expression;
};
const error = (q: string) => {
  const r = parseSearchQuery(q);
  return r.ok ? undefined : r.message;
};

describe("parseSearchQuery", () => {
  it("requires every word", () => {
    expect(expr("rain snow")).toBe(`"rain" AND "snow"`);
  });
  it("keeps quoted phrases together", () => {
    expect(expr(`"partly cloudy" wind`)).toBe(`"partly cloudy" AND "wind"`);
  });
  it("joins the terms on each side of OR, tighter than the spaces", () => {
    expect(expr("flood OR storm warning")).toBe(`("flood" OR "storm") AND "warning"`);
    expect(expr("a1 OR b2 OR c3")).toBe(`("a1" OR "b2" OR "c3")`);
  });
  it("reads a dangling OR as the word", () => {
    expect(expr("OR rain")).toBe(`"or" AND "rain"`);
    expect(expr("rain OR")).toBe(`"rain" AND "or"`);
    expect(expr("rain or snow")).toBe(`"rain" AND "or" AND "snow"`);
  });
  it("excludes -terms and NOT terms", () => {
    expect(expr("market -rain")).toBe(`("market") NOT ("rain")`);
    expect(expr(`market -"heavy rain" NOT snow`)).toBe(`("market") NOT ("heavy rain" OR "snow")`);
  });
  it("matches prefixes, also at the end of a phrase", () => {
    expect(expr("sun*")).toBe(`"sun"*`);
    expect(expr(`"farmers mar"*`)).toBe(`"farmers mar"*`);
  });
  it("splits words on punctuation and never lets user text out of the quotes", () => {
    expect(expr("covid-19 o'brien")).toBe(`"covid 19" AND "o brien"`);
    expect(expr(`NEAR(a b) subject:x "y`)).toBe(`"NEAR a" AND "b" AND "subject x" AND "y"`);
    expect(expr("café ÜBER")).toBe(`"café" AND "ÜBER"`);
  });
  it("explains what cannot be searched", () => {
    expect(error("!!! ---")).toMatch(/no words/);
    expect(error("-rain")).toMatch(/only excludes/);
    expect(error("s*")).toMatch(/at least 2 letters/);
    expect(error(Array.from({ length: MAX_TERMS + 1 }, (_, i) => `w${i}`).join(" "))).toMatch(/at most/);
  });
  it("always yields an expression FTS5 accepts", () => {
    const db = new Database(":memory:");
    db.exec("CREATE VIRTUAL TABLE t USING fts5(subject, body, tokenize = 'unicode61 remove_diacritics 2')");
    db.prepare("INSERT INTO t VALUES ('x', 'covid 19 rain')").run();
    const nasty = [`"`, `""`, `a"b"c`, `(rain`, `rain)`, `*rain`, `rain**`, `^rain`, `rain:`, `{subject}: x`, `NOT`, `AND OR`, `- - rain`,
      `x OR OR y`, `'; DROP TABLE t; --`, `NEAR("a" "b", 3)`, `rain\u0000`, `🌧️ rain`, `-"a" b*`, `x AND`, `"a" OR -b c`];
    for (const q of nasty) {
      const r = parseSearchQuery(q);
      if (!r.ok) continue;
      expect(() => db.prepare("SELECT count(*) FROM t WHERE t MATCH ?").get(`{subject body} : (${r.query.expression})`), q).not.toThrow();
    }
  });
});

describe("search text", () => {
  it("indexes what a reader sees, not markdown syntax or link targets", () => {
    const text = plainTextOf("# Hi **there**\n\n- [Market](https://example.com/x) &amp; `fair`\n\n<b>bold</b> 5 < 6");
    expect(text).toBe("Hi there\nMarket & fair\nbold 5 < 6");
  });
  it("escapes snippets except for the marks", () => {
    expect(snippetToHtml("a <script>\u0002x\u0003</script> & \"q\"")).toBe("a &lt;script&gt;<mark>x</mark>&lt;/script&gt; &amp; &quot;q&quot;");
    expect(snippetToHtml("\u0002open")).toBe("<mark>open</mark>");
  });
});
