import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Temporal } from "@js-temporal/polyfill";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type DB } from "../../src/store/db.ts";
import { SqliteKvStore } from "../../src/store/fediverse/kv.ts";
import { SqliteMessageQueue } from "../../src/services/fediverse/queue.ts";
import { inboxRefusal } from "../../src/services/fediverse/inbox.ts";
import type { AppContext } from "../../src/services/platform/context.ts";

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function database(): DB {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-fediverse-"));
  dirs.push(dir);
  return openDatabase(path.join(dir, "citydaily.db"));
}
const silent = pino({ level: "silent" });

describe("Fedify's key-value store on the database", () => {
  it("gets, sets, deletes, lists by prefix and forgets what outlived its TTL", async () => {
    let now = 1_000_000;
    const kv = new SqliteKvStore(database(), () => now);
    await kv.set(["_fedify", "remoteDocument", "https://a.example/x"], { id: 1 });
    await kv.set(["_fedify", "remoteDocument", "https://b.example/y"], { id: 2 }, { ttl: Temporal.Duration.from({ seconds: 10 }) as never });
    await kv.set(["_fedify", "remoteDocumentsAside"], "not under the prefix");
    await kv.set(["_fedify", "activityIdempotence", "x"], true);
    expect(await kv.get(["_fedify", "remoteDocument", "https://a.example/x"])).toEqual({ id: 1 });
    const listed = [];
    for await (const e of kv.list(["_fedify", "remoteDocument"])) listed.push(e);
    expect(listed.map((e) => e.key[2])).toEqual(["https://a.example/x", "https://b.example/y"]);
    now += 10_001;
    expect(await kv.get(["_fedify", "remoteDocument", "https://b.example/y"])).toBeUndefined();
    await kv.delete(["_fedify", "activityIdempotence", "x"]);
    expect(await kv.get(["_fedify", "activityIdempotence", "x"])).toBeUndefined();
  });

  it("swaps only when the value is the one expected (absent included)", async () => {
    const kv = new SqliteKvStore(database());
    expect(await kv.cas(["k"], undefined, 1)).toBe(true);
    expect(await kv.cas(["k"], undefined, 2)).toBe(false);
    expect(await kv.cas(["k"], 1, 3)).toBe(true);
    expect(await kv.get(["k"])).toBe(3);
  });
});

describe("the delivery queue on the database", () => {
  it("hands each task to the listener once, holds a delayed one until due, and stops when told", async () => {
    const queue = new SqliteMessageQueue(database(), { concurrency: 4, pollMs: 20, log: silent });
    const seen: string[] = [];
    const stop = new AbortController();
    const listening = queue.listen(async (m) => { seen.push((m as { n: string }).n); }, { signal: stop.signal });
    await queue.enqueueMany([{ n: "a" }, { n: "b" }]);
    await queue.enqueue({ n: "later" }, { delay: Temporal.Duration.from({ milliseconds: 300 }) as never });
    await new Promise((r) => setTimeout(r, 150));
    expect(seen.sort()).toEqual(["a", "b"]);
    expect(await queue.getDepth()).toEqual({ queued: 1, ready: 0, delayed: 1 });
    await new Promise((r) => setTimeout(r, 400));
    expect(seen).toContain("later");
    stop.abort();
    await listening;
    expect((await queue.getDepth()).queued).toBe(0);
  });

  it("drops a delivery to a private or loopback address unless FEDERATION_ALLOW_PRIVATE, and says why", async () => {
    const ctx = (allowPrivate: boolean) => ({ config: { federation: { allowPrivate } } }) as AppContext;
    for (const inbox of ["http://127.0.0.1:8080/inbox", "http://10.1.2.3/inbox", "http://[::1]/inbox", "http://169.254.169.254/latest", "http://localhost/inbox"]) {
      expect(await inboxRefusal(ctx(false), inbox)).toMatch(/not on the public internet/);
      expect(await inboxRefusal(ctx(true), inbox)).toBeUndefined();
    }
    expect(await inboxRefusal(ctx(false), "https://93.184.215.14/inbox")).toBeUndefined();
    const db = database();
    const handled: unknown[] = [];
    const queue = new SqliteMessageQueue(db, { concurrency: 2, pollMs: 20, log: silent, refuse: (m) => (m.inbox ? inboxRefusal(ctx(false), m.inbox) : Promise.resolve(undefined)) });
    const stop = new AbortController();
    const listening = queue.listen(async (m) => { handled.push(m); }, { signal: stop.signal });
    await queue.enqueue({ type: "outbox", inbox: "http://192.168.1.10/inbox" });
    await queue.enqueue({ type: "outbox", inbox: "https://93.184.215.14/inbox" });
    await new Promise((r) => setTimeout(r, 150));
    stop.abort();
    await listening;
    expect(handled).toEqual([{ type: "outbox", inbox: "https://93.184.215.14/inbox" }]);
    expect((await queue.getDepth()).queued).toBe(0);
  });
});
