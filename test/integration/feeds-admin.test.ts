import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TownFeed, TownFeedList } from "../../src/contract/feeds.ts";
import { Problem } from "../../src/contract/problems.ts";
import { createFeedFetcher } from "../../src/integrations/feeds/fetch.ts";
import { addFeed } from "../../src/services/sources/feeds.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { ATOM_TYPE, atomFeed, CALENDAR_TYPE, libraryCalendar, RSS_TYPE, rssFeed, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// Feeds as data: added (after one vetting fetch), listed and removed over the admin endpoints and
// the admin CLI, through the same operations; refusals are problems and store nothing.

const NOW = "2026-11-24T14:00:00.000Z";
const TOKEN = "feeds-admin-token";
const ROOT = path.resolve(import.meta.dirname, "../..");
const auth = { Authorization: `Bearer ${TOKEN}` };

let src: TownSourcesServer;
let server: TestServer;

beforeAll(async () => {
  src = await startTownSourcesServer();
  src.setFeed("/library.ics", { body: libraryCalendar({ weekStart: "2026-11-17" }), contentType: CALENDAR_TYPE });
  src.setFeed("/times.rss", { body: rssFeed("The Ely Times", [{ title: "Council approves water rates", link: "https://times.example.org/water", published: "2026-11-23T15:00:00Z" }]), contentType: RSS_TYPE });
  src.setFeed("/city.atom", { body: atomFeed("City of Ely News", [{ title: "Snow plowing schedule", link: "https://city.example.gov/plowing", published: "2026-11-24T12:00:00Z" }]), contentType: ATOM_TYPE });
  src.setFeed("/page.html", { body: "<!doctype html><html><body><h1>Events</h1></body></html>", contentType: "text/html" });
  src.setFeed("/big.rss", { body: rssFeed("Big", []), contentType: RSS_TYPE });
  src.setMode("/big.rss", "oversize", { oversizeBytes: 3 * 1024 * 1024 });
  src.setFeed("/slow.ics", { body: libraryCalendar(), contentType: CALENDAR_TYPE });
  src.setMode("/slow.ics", "slow");
  server = await startTestServer({ NOW, ADMIN_TOKEN: TOKEN, FEEDS_ALLOW_PRIVATE: "true", FEED_TIMEOUT_MS: "800" });
});
afterAll(async () => {
  await server?.stop();
  await src?.close();
});

const addOver = (slug: string, url: string, headers: Record<string, string> = auth) => server.post(`/admin/towns/${slug}/feeds`, { url }, { headers });
const listOf = async (slug: string) => TownFeedList.parse(await (await server.get(`/admin/towns/${slug}/feeds`, { headers: auth })).json()).feeds;

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = Problem.parse(await res.json());
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body;
}

describe("POST /admin/towns/{slug}/feeds", () => {
  it("adds a calendar, an RSS and an Atom feed, detecting each kind and title, with who added it", async () => {
    const res = await addOver("ely-nevada", `${src.url}/library.ics`);
    expect(res.status).toBe(200);
    const cal = TownFeed.parse(await res.json());
    expect(cal).toMatchObject({
      town: { slug: "ely-nevada", name: "Ely", state: "Nevada" },
      url: `${src.url}/library.ics`, kind: "ical", title: "White Pine County Library", addedBy: "staff",
      status: "ok", lastError: null, consecutiveFailures: 0, lastFetchedAt: NOW, itemsFetchedAt: NOW, createdAt: NOW,
    });
    // Story time (weekly, one week cancelled), the talk and the book sale in the 17 days kept.
    expect(cal.itemCount).toBeGreaterThanOrEqual(4);

    const rss = TownFeed.parse(await (await addOver("ely-nevada", `${src.url}/times.rss`)).json());
    expect([rss.kind, rss.title, rss.itemCount]).toEqual(["rss", "The Ely Times", 1]);
    const atom = TownFeed.parse(await (await addOver("ely-nevada", `${src.url}/city.atom`)).json());
    expect([atom.kind, atom.title]).toEqual(["atom", "City of Ely News"]);

    expect((await listOf("ely-nevada")).map((f) => [f.id, f.kind])).toEqual([[cal.id, "ical"], [rss.id, "rss"], [atom.id, "atom"]]);
  });

  it("refuses, with a problem naming why and nothing stored: a duplicate, a web page, a 404, an oversize or slow feed, a bad scheme", async () => {
    const before = (await listOf("ely-nevada")).length;
    const dup = await expectProblem(await addOver("ely-nevada", `${src.url}/library.ics`), 409, "feed_exists");
    expect(dup.detail).toContain("Ely already has");
    const page = await expectProblem(await addOver("ely-nevada", `${src.url}/page.html`), 422, "feed_unreadable");
    expect(page.detail).toMatch(/not with an iCalendar calendar or an RSS\/Atom feed/);
    await expectProblem(await addOver("ely-nevada", `${src.url}/missing.ics`), 422, "feed_unreachable");
    const big = await expectProblem(await addOver("ely-nevada", `${src.url}/big.rss`), 422, "feed_too_large");
    expect(big.detail).toContain("2048 KB");
    const started = performance.now();
    const slow = await expectProblem(await addOver("ely-nevada", `${src.url}/slow.ics`), 422, "feed_unreachable");
    expect(slow.detail).toContain("within 800 ms");
    expect(performance.now() - started).toBeLessThan(3000);
    await expectProblem(await addOver("ely-nevada", "ftp://example.org/events.ics"), 422, "feed_address_refused");
    await expectProblem(await addOver("ely-nevada", "not a url"), 422, "feed_address_refused");
    await expectProblem(await addOver("nowhere-nevada", `${src.url}/library.ics`), 404, "city_not_found");
    const invalid = await server.post("/admin/towns/ely-nevada/feeds", { link: "x" }, { headers: auth });
    await expectProblem(invalid, 400, "validation_error");
    expect((await listOf("ely-nevada")).length).toBe(before);
  });

  it("refuses private, loopback and link-local addresses unless FEEDS_ALLOW_PRIVATE is set, by name too", async () => {
    const allowing = server.ctx.sources.feeds;
    server.ctx.sources.feeds = createFeedFetcher({ allowPrivate: false, maxBytes: 2 * 1024 * 1024, timeoutMs: 800, userAgent: "test" });
    try {
      const port = new URL(src.url).port;
      const before = src.requests.length;
      for (const url of [`${src.url}/times.rss`, `http://localhost:${port}/times.rss`, `http://[::1]:${port}/times.rss`, "http://169.254.169.254/latest/meta-data/", "http://10.0.0.7/feed.rss"]) {
        const p = await expectProblem(await addOver("boise-idaho", url), 422, "feed_address_refused");
        expect(p.detail).toMatch(/private, loopback or link-local/);
      }
      expect(src.requests.length).toBe(before); // not one request reached the stand-in
      expect(await listOf("boise-idaho")).toEqual([]);
    } finally {
      server.ctx.sources.feeds.close();
      server.ctx.sources.feeds = allowing;
    }
    // With the flag (this server's setting), the same loopback feed is added.
    expect((await addOver("boise-idaho", `${src.url}/times.rss`)).status).toBe(200);
  });

  it("is for staff only", async () => {
    await expectProblem(await server.post("/admin/towns/ely-nevada/feeds", { url: `${src.url}/times.rss` }), 401, "unauthorized");
    await expectProblem(await addOver("ely-nevada", `${src.url}/times.rss`, { Authorization: "Bearer nope" }), 403, "forbidden");
    await expectProblem(await server.get("/admin/feeds"), 401, "unauthorized");
    await expectProblem(await server.get("/admin/feeds/1", { method: "DELETE" }), 401, "unauthorized");
  });

  it("takes who added it from the caller: the operator desk passes the operator's email", async () => {
    const feed = await addFeed(server.ctx, "ely-nevada", `${src.url}/city.atom?desk=1`, "operator@ely.example.org");
    expect(feed.addedBy).toBe("operator@ely.example.org");
  });
});

describe("DELETE /admin/feeds/{id}", () => {
  it("removes one feed and answers what it removed; a second delete is not found", async () => {
    const [first] = await listOf("ely-nevada");
    const res = await server.get(`/admin/feeds/${first!.id}`, { method: "DELETE", headers: auth });
    expect(res.status).toBe(200);
    expect((await res.json()).removed).toMatchObject({ id: first!.id, url: first!.url });
    expect((await listOf("ely-nevada")).map((f) => f.id)).not.toContain(first!.id);
    await expectProblem(await server.get(`/admin/feeds/${first!.id}`, { method: "DELETE", headers: auth }), 404, "not_found");
    await expectProblem(await server.get("/admin/feeds/abc", { method: "DELETE", headers: auth }), 400, "validation_error");
    const wrong = await server.post(`/admin/feeds/${first!.id}`, {}, { headers: auth });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("DELETE");
  });
});

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["scripts/admin.ts", ...args], {
      cwd: ROOT, env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "silent", NOW, BASE_URL: server.url, FEEDS_ALLOW_PRIVATE: "true" },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("npm run admin -- feeds", () => {
  it("adds, lists and removes through the same operations", async () => {
    const add = await admin("feeds", "add", "reno-nevada", `${src.url}/library.ics`);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/^added +\d+ {2}reno-nevada {2}ical {2}"White Pine County Library" {2}http:\/\/127\.0\.0\.1:\d+\/library\.ics {2}\d+ item\(s\) {2}ok {2}added by staff/);
    const id = /added +(\d+)/.exec(add.stdout)![1]!;
    // The server sees what the CLI stored (one database).
    expect((await listOf("reno-nevada")).map((f) => String(f.id))).toEqual([id]);

    const list = await admin("feeds", "list", "reno-nevada");
    expect(list.stdout).toContain("1 feed(s)");
    const all = await admin("feeds", "list");
    expect(all.stdout).toMatch(/ely-nevada/);
    expect(all.stdout).toMatch(/reno-nevada/);

    const refused = await admin("feeds", "add", "reno-nevada", `${src.url}/page.html`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^feed_unreadable: /);

    const remove = await admin("feeds", "remove", id);
    expect(remove.stdout).toMatch(new RegExp(`^removed +${id} `));
    expect(await listOf("reno-nevada")).toEqual([]);
    expect((await admin("feeds", "remove", id)).stderr).toMatch(/^not_found/);
  });
});
