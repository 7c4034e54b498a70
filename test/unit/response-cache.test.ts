import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createResponseCache } from "../../src/services/platform/response-cache.ts";
import { allOperations } from "../../src/contract/operations/index.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { openDatabase } from "../../src/store/db.ts";
import { setMeta } from "../../src/store/platform/meta.ts";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function setup(nowMs: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-rcache-"));
  dirs.push(dir);
  const db = openDatabase(path.join(dir, "citydaily.db"));
  const clock = { now: nowMs };
  const ctx = { db, config: { now: () => new Date(clock.now) } } as unknown as AppContext;
  return { db, clock, cache: createResponseCache(ctx), file: path.join(dir, "citydaily.db") };
}

const getOperation = (id: string) => allOperations.find((o) => o.operationId === id)!;
const entry = { body: "{}", etag: '"x"', contentType: "application/json", cacheControl: "public, max-age=60", headers: {} };

describe("the response cache", () => {
  it("keeps public reads, never admin reads, writes or no-store answers", () => {
    const { cache } = setup(0);
    expect(cache.keeps(getOperation("getCity"))).toBe(true);
    expect(cache.keeps(getOperation("listCities"))).toBe(true);
    expect(cache.keeps(getOperation("subscribe"))).toBe(false);
    expect(cache.keeps(getOperation("getStatus"))).toBe(false);
  });

  it("answers from memory until this process writes", () => {
    const { db, cache } = setup(Date.parse("2026-11-23T10:00:00.200Z"));
    cache.set("k", cache.version(), entry, undefined);
    expect(cache.get("k")?.body).toBe("{}");
    setMeta(db, "anything", "changed");
    expect(cache.get("k")).toBeUndefined();
  });

  it("answers from memory until another connection commits (seen from the next turn of the event loop)", async () => {
    const { cache, file } = setup(Date.parse("2026-11-23T10:00:00.200Z"));
    cache.set("k", cache.version(), entry, undefined);
    expect(cache.get("k")).toBeDefined();
    const other = new Database(file);
    other.prepare("INSERT INTO meta (key, value) VALUES ('from', 'elsewhere')").run();
    other.close();
    // Other connections' commits are read once per turn: a later request always comes in a later one.
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.get("k")).toBeUndefined();
  });

  it("keeps nothing read while something wrote", () => {
    const { db, cache } = setup(Date.parse("2026-11-23T10:00:00.200Z"));
    const before = cache.version();
    setMeta(db, "during", "the read");
    cache.set("k", before, entry, undefined);
    expect(cache.get("k")).toBeUndefined();
  });

  it("lets an entry go at the next second, or earlier when a listing or checkout falls due", () => {
    const { clock, cache } = setup(Date.parse("2026-11-23T10:00:00.200Z"));
    cache.set("k", cache.version(), entry, undefined);
    clock.now = Date.parse("2026-11-23T10:00:00.999Z");
    expect(cache.get("k")).toBeDefined();
    clock.now = Date.parse("2026-11-23T10:00:01.000Z");
    expect(cache.get("k")).toBeUndefined();

    cache.set("due", cache.version(), entry, "2026-11-23T10:00:01.500Z");
    clock.now = Date.parse("2026-11-23T10:00:01.499Z");
    expect(cache.get("due")).toBeDefined();
    clock.now = Date.parse("2026-11-23T10:00:01.500Z");
    expect(cache.get("due")).toBeUndefined();
  });
});
