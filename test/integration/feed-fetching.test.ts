import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFeedFetcher, type FeedFetcher } from "../../src/integrations/feeds/fetch.ts";
import { CALENDAR_TYPE, libraryCalendar, RSS_TYPE, rssFeed, startTownSourcesServer, type TownSourcesServer } from "../helpers/town-sources-server.ts";

// The rules of fetching an address a person gave: public addresses only (checked when connecting,
// after the name is resolved, and again on every redirect), a size limit, a time limit, conditional
// requests.

let src: TownSourcesServer;
const fetchers: FeedFetcher[] = [];
const fetcher = (o: Partial<Parameters<typeof createFeedFetcher>[0]> = {}) => {
  const f = createFeedFetcher({ allowPrivate: true, maxBytes: 64 * 1024, timeoutMs: 1000, userAgent: "citydaily-test", ...o });
  fetchers.push(f);
  return f;
};

beforeAll(async () => {
  src = await startTownSourcesServer();
  src.setFeed("/times.rss", { body: rssFeed("The Ely Times", [{ title: "Water rates", link: "https://times.example.org/water" }]), contentType: RSS_TYPE, etag: '"v1"', lastModified: "Mon, 23 Nov 2026 10:00:00 GMT" });
  src.setFeed("/cal.ics", { body: libraryCalendar(), contentType: CALENDAR_TYPE, lastModified: "Mon, 23 Nov 2026 10:00:00 GMT" });
});
afterAll(async () => {
  for (const f of fetchers) f.close();
  await src?.close();
});

describe("which addresses may be fetched", () => {
  it("refuses loopback, private and link-local addresses, also behind a name, without connecting", async () => {
    const strict = fetcher({ allowPrivate: false });
    const port = new URL(src.url).port;
    const before = src.requests.length;
    for (const url of [`${src.url}/times.rss`, `http://localhost:${port}/times.rss`, `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, "http://169.254.169.254/latest/meta-data/", "http://192.168.1.1/", "http://0.0.0.0/"]) {
      await expect(strict.fetch(url), url).rejects.toMatchObject({ name: "SourceError", kind: "refused" });
    }
    expect(src.requests.length).toBe(before);
  });

  it("refuses schemes other than http(s) and addresses with credentials", async () => {
    for (const url of ["file:///etc/passwd", "ftp://example.org/a.ics", "gopher://x/", "http://user:pw@example.org/feed", "/relative.rss"]) {
      await expect(fetcher().fetch(url), url).rejects.toMatchObject({ kind: "refused" });
    }
  });

  it("checks every redirect again: a public-looking answer cannot send the fetch inside", async () => {
    // Only 127.0.0.1 is let through here (the stand-in); every other private address is refused.
    const f = fetcher({ allowPrivate: false, allowAddresses: ["127.0.0.1"] });
    src.setMode("/moved.rss", "redirect", { redirectTo: "/times.rss" });
    expect((await f.fetch(`${src.url}/moved.rss`)).status).toBe("ok");
    src.setMode("/metadata.rss", "redirect", { redirectTo: "http://169.254.169.254/latest/meta-data/" });
    await expect(f.fetch(`${src.url}/metadata.rss`)).rejects.toMatchObject({ kind: "refused" });
    src.setMode("/scheme.rss", "redirect", { redirectTo: "file:///etc/passwd" });
    await expect(f.fetch(`${src.url}/scheme.rss`)).rejects.toMatchObject({ kind: "refused" });
    src.setMode("/loop.rss", "redirect", { redirectTo: "/loop.rss" });
    await expect(f.fetch(`${src.url}/loop.rss`)).rejects.toMatchObject({ kind: "status", message: "more than 5 redirects" });
  });

  it("with FEEDS_ALLOW_PRIVATE, reaches the local stand-in", async () => {
    const r = await fetcher().fetch(`${src.url}/times.rss`);
    expect(r).toMatchObject({ status: "ok", etag: '"v1"', contentType: RSS_TYPE, url: `${src.url}/times.rss` });
    if (r.status === "ok") expect(r.body).toContain("<title>The Ely Times</title>");
  });
});

describe("limits", () => {
  it("cuts off a body larger than the limit as it arrives", async () => {
    src.setFeed("/big.rss", { body: rssFeed("Big", []), contentType: RSS_TYPE });
    src.setMode("/big.rss", "oversize", { oversizeBytes: 10 * 1024 * 1024 });
    const started = performance.now();
    await expect(fetcher({ maxBytes: 64 * 1024 }).fetch(`${src.url}/big.rss`)).rejects.toMatchObject({ kind: "too_large" });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("gives up on a server that does not answer, or stalls mid-body, at the time limit", async () => {
    src.setFeed("/slow.rss", { body: rssFeed("Slow", []), contentType: RSS_TYPE });
    src.setMode("/slow.rss", "slow");
    src.setFeed("/stall.rss", { body: rssFeed("Stall", []), contentType: RSS_TYPE });
    src.setMode("/stall.rss", "stall");
    for (const path of ["/slow.rss", "/stall.rss"]) {
      const started = performance.now();
      await expect(fetcher({ timeoutMs: 400 }).fetch(`${src.url}${path}`)).rejects.toMatchObject({ kind: "timeout" });
      expect(performance.now() - started).toBeLessThan(1200);
    }
  });

  it("stops when the morning's signal aborts", async () => {
    const stop = new AbortController();
    const pending = fetcher({ timeoutMs: 10_000 }).fetch(`${src.url}/slow.rss`, {}, stop.signal);
    setTimeout(() => stop.abort(), 100);
    await expect(pending).rejects.toMatchObject({ kind: "aborted" });
  });

  it("reports a server error as a status failure", async () => {
    src.setFeed("/down.rss", { body: "", contentType: RSS_TYPE });
    src.setMode("/down.rss", "error");
    await expect(fetcher().fetch(`${src.url}/down.rss`)).rejects.toMatchObject({ kind: "status", message: "the server answered 503" });
  });
});

describe("conditional requests", () => {
  it("sends the stored ETag and Last-Modified, and a 304 says the stored items still hold", async () => {
    const f = fetcher();
    expect(await f.fetch(`${src.url}/times.rss`, { etag: '"v1"', lastModified: "Mon, 23 Nov 2026 10:00:00 GMT" })).toEqual({ status: "not-modified" });
    const req = src.requests.at(-1)!;
    expect(req.headers["if-none-match"]).toBe('"v1"');
    expect(req.headers["if-modified-since"]).toBe("Mon, 23 Nov 2026 10:00:00 GMT");
    expect(await f.fetch(`${src.url}/cal.ics`, { lastModified: "Mon, 23 Nov 2026 10:00:00 GMT" })).toEqual({ status: "not-modified" });
    // A changed feed answers in full.
    expect((await f.fetch(`${src.url}/times.rss`, { etag: '"v0"' })).status).toBe("ok");
  });
});
