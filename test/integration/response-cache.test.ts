import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseFile } from "../../src/store/db.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Cached reads are answered from memory (src/services/platform/response-cache.ts): these prove a reader never sees an
// answer older than the data, whichever process wrote it.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  addSubscriber(server.ctx.db, "boise-idaho", "a@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-20", "Frost tonight in Boise");
});
afterAll(() => server.stop());

const city = async () => (await (await server.get("/api/city/boise-idaho")).json()) as { subscriberCount: number; archives: Array<{ date: string }> };

describe("the response cache", () => {
  it("shows a subscription made through the API at once, and the same bytes and validator in between", async () => {
    const first = await server.get("/api/city/boise-idaho");
    const again = await server.get("/api/v1/city/boise-idaho");
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(await again.text()).toBe(await first.text());
    expect((await city()).subscriberCount).toBe(1);

    const res = await server.post("/api/subscribe", { email: "b@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
    expect(res.status).toBe(200);
    const after = await server.get("/api/city/boise-idaho");
    expect(after.headers.get("etag")).not.toBe(first.headers.get("etag"));
    expect(((await after.json()) as { subscriberCount: number }).subscriberCount).toBe(2);
  });

  it("answers 304 to a matching If-None-Match from memory, and 200 with the new body once the data changed", async () => {
    const etag = (await server.get("/api/cities")).headers.get("etag")!;
    const cached = await server.get("/api/cities", { headers: { "If-None-Match": etag } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe("");
    addSubscriber(server.ctx.db, "st-louis-missouri", "c@example.org");
    const changed = await server.get("/api/cities", { headers: { "If-None-Match": etag } });
    expect(changed.status).toBe(200);
    expect(JSON.stringify(await changed.json())).toContain("st-louis-missouri");
  });

  it("sees what another process commits (a morning run, the admin CLI) on the next request", async () => {
    expect((await city()).archives.map((a) => a.date)).toEqual(["2026-11-20"]);
    const other = new Database(databaseFile(server.dataDir));
    try {
      addEdition(other, "boise-idaho", "2026-11-21", "Clear and cold");
    } finally {
      other.close();
    }
    expect((await city()).archives.map((a) => a.date)).toEqual(["2026-11-21", "2026-11-20"]);
  });
});
