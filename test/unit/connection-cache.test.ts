import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { cachedStatement, connectionCache } from "../../src/store/db.ts";
import { textTokens } from "../../src/store/search/tokens.ts";

// Caches of one connection live on that connection (src/store/db.ts), so two apps (or a publisher and
// its render worker) in one process never share statements or memos.

describe("connection caches", () => {
  it("prepare a statement once per connection, and each runs on its own database", () => {
    const a = new Database(":memory:");
    const b = new Database(":memory:");
    try {
      for (const [db, v] of [[a, 1], [b, 2]] as const) db.exec(`CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (${v});`);
      const sql = "SELECT v FROM t";
      expect(cachedStatement(a, sql)).toBe(cachedStatement(a, sql));
      expect(cachedStatement(a, sql)).not.toBe(cachedStatement(b, sql));
      expect(cachedStatement(a, sql).pluck().get()).toBe(1);
      expect(cachedStatement(b, sql).pluck().get()).toBe(2);
      // Named caches are kept apart, and made once.
      let made = 0;
      const memo = connectionCache(a, "test", () => (made++, new Map()));
      expect(connectionCache(a, "test", () => (made++, new Map()))).toBe(memo);
      expect(connectionCache(b, "test", () => (made++, new Map()))).not.toBe(memo);
      expect(made).toBe(2);
    } finally {
      a.close();
      b.close();
    }
  });

  it("let the tokenizer's memo of one connection serve only that connection", () => {
    const a = new Database(":memory:");
    const b = new Database(":memory:");
    try {
      expect(textTokens(a, "Cañon City café")).toEqual(["canon", "city", "cafe"]);
      expect(textTokens(b, "Cañon City café")).toEqual(["canon", "city", "cafe"]);
      const memo = connectionCache(a, "tokenRuns", () => new Map<string, string[]>());
      expect([...memo.keys()].sort()).toEqual(["Cañon", "café"]);
      a.close();
      // The other connection works on after the first is gone: nothing of it was shared.
      expect(textTokens(b, "Crème brûlée")).toEqual(["creme", "brulee"]);
    } finally {
      if (a.open) a.close();
      b.close();
    }
  });
});
