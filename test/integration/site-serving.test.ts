import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteDirs } from "../../src/publish/site-dir.ts";
import { buildSite, publishEditions } from "../../src/services/site/publish.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The built site over real HTTP: content types, caching, negotiation, 404s, and the publish swap.

let server: TestServer;

/** Every file of the live site (generation + archive) with its inode, to see what a publish replaced. */
function snapshot(): Map<string, number> {
  const dirs = siteDirs(server.dataDir);
  const out = new Map<string, number>();
  const walk = (root: string, dir: string, prefix: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(root, full, prefix);
      else out.set(prefix + path.relative(root, full), fs.statSync(full).ino);
    }
  };
  const live = fs.realpathSync(dirs.current);
  walk(live, live, "gen:");
  walk(dirs.archive, dirs.archive, "archive:");
  return out;
}

beforeAll(async () => {
  server = await startTestServer();
  const db = server.ctx.db;
  addSubscriber(db, "boise-idaho", "reader@example.org");
  addEdition(db, "boise-idaho", "2026-11-19", "Boise: a clear, cold Thursday");
  addEdition(db, "boise-idaho", "2026-11-20", "Boise: frost, then sun");
  addEdition(db, "st-louis-missouri", "2026-11-20", "St. Louis: rain by noon");
  addEdition(db, "kansas-city-missouri", "2026-11-20", "Kansas City: windy");
  await buildSite(server.ctx);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe("serving the built site", () => {
  it("serves pages as HTML with short caching, and dated editions with long caching", async () => {
    for (const p of ["/", "/cities", "/states/idaho", "/boise-idaho", "/developers"]) {
      const r = await server.get(p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(r.headers.get("cache-control")).toBe("public, max-age=300, s-maxage=600");
      expect(r.headers.get("vary")).toMatch(/Accept/);
      expect(r.headers.get("etag")).toMatch(/^"[\w-]+"$/);
      expect(await r.text()).toMatch(/<\/html>$/);
    }
    const edition = await server.get("/boise-idaho/2026-11-20");
    expect(edition.status).toBe(200);
    expect(edition.headers.get("cache-control")).toBe("public, max-age=86400, s-maxage=31536000");
    const html = await edition.text();
    expect(html).toContain("Boise: frost, then sun");
    expect(html).toContain(`<link rel="canonical" href="${server.url}/boise-idaho/2026-11-20">`);
    expect(html).toContain(`type="application/json+oembed" href="${server.url}/api/oembed?url=${encodeURIComponent(`${server.url}/boise-idaho/2026-11-20`)}"`);
    expect(html).toContain(`<link rel="alternate" type="text/markdown" href="${server.url}/boise-idaho/2026-11-20.md"`);
    expect(html).toContain('<meta property="og:title"');
  });

  it("serves hashed assets as immutable, feeds, sitemaps and text files with their types", async () => {
    const home = await (await server.get("/")).text();
    const css = home.match(/href="(\/_astro\/[^"]+\.css)"/)?.[1];
    expect(css).toBeDefined();
    const asset = await server.get(css!);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");

    const types: Record<string, string> = {
      "/feed.xml": "application/rss+xml; charset=utf-8",
      "/boise-idaho/feed.xml": "application/rss+xml; charset=utf-8",
      "/sitemap.xml": "application/xml; charset=utf-8",
      "/llms.txt": "text/plain; charset=utf-8",
      "/llms-full.txt": "text/plain; charset=utf-8",
      "/cities.md": "text/markdown; charset=utf-8",
      "/place-index.json": "application/json; charset=utf-8",
      "/place-finder.js": "text/javascript; charset=utf-8",
      "/minisearch.js": "text/javascript; charset=utf-8",
    };
    for (const [p, type] of Object.entries(types)) {
      const r = await server.get(p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get("content-type"), p).toBe(type);
    }
  });

  it("answers If-None-Match with 304 and HEAD without a body", async () => {
    const first = await server.get("/boise-idaho");
    const etag = first.headers.get("etag")!;
    const again = await server.get("/boise-idaho", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const head = await server.get("/boise-idaho", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(etag);
    expect(await head.text()).toBe("");
  });

  it("answers HEAD and If-None-Match for a large file with its validator and length, old validators with the new file", async () => {
    const first = await server.get("/place-index.json", { headers: { "Accept-Encoding": "identity" } });
    const bytes = Buffer.from(await first.arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(256 * 1024); // not kept in memory: the case this path is for
    const etag = first.headers.get("etag")!;
    for (let i = 0; i < 2; i++) {
      const head = await server.get("/place-index.json", { method: "HEAD", headers: { "Accept-Encoding": "identity" } });
      expect(head.status).toBe(200);
      expect(head.headers.get("etag")).toBe(etag);
      expect(head.headers.get("content-length")).toBe(String(bytes));
      expect(head.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const again = await server.get("/place-index.json", { headers: { "If-None-Match": etag, "Accept-Encoding": "identity" } });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
    }
    // A new file under the same name (a publish renames one over it): the old validator no longer matches.
    const file = path.join(fs.realpathSync(siteDirs(server.dataDir).current), "place-index.json");
    const tmp = `${file}.tmp`;
    fs.writeFileSync(tmp, `${fs.readFileSync(file, "utf8")} `);
    fs.renameSync(tmp, file);
    const changed = await server.get("/place-index.json", { headers: { "If-None-Match": etag, "Accept-Encoding": "identity" } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(Buffer.from(await changed.arrayBuffer()).byteLength).toBe(bytes + 1);
  });

  it("serves markdown twins at .md and on Accept: text/markdown", async () => {
    for (const p of ["/boise-idaho.md", "/boise-idaho/2026-11-20.md", "/states/idaho.md", "/feed.md", "/developers.md"]) {
      const r = await server.get(p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      expect(r.headers.get("vary")).toBe("Accept, Accept-Encoding");
      const body = await r.text();
      expect(Number(r.headers.get("x-markdown-tokens"))).toBe(Math.ceil(body.length / 4));
    }
    const negotiated = await server.get("/boise-idaho/2026-11-20", { headers: { Accept: "text/markdown" } });
    expect(negotiated.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await negotiated.text()).toBe(await (await server.get("/boise-idaho/2026-11-20.md")).text());
    const dev = await server.get("/developers", { headers: { Accept: "text/markdown, text/html;q=0.5" } });
    expect(dev.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const browser = await server.get("/developers", { headers: { Accept: "text/html,application/xhtml+xml,text/markdown;q=0.5" } });
    expect(browser.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("answers unknown pages with the friendly 404 page, and never leaves the site directory", async () => {
    for (const p of ["/no-such-town-ohio", "/boise-idaho/2031-01-01", "/states/atlantis", "/boise-idaho.html", "/404",
      "/..%2f..%2fcitydaily.db", "/%2e%2e/citydaily.db", "/.%2e/.%2e/etc/passwd", "/generations", "/archive/boise-idaho/2026-11-20", "/%00",
      // Longer than any file name (255 bytes): not found, never a 500 from the file system.
      `/${"a".repeat(300)}`, `/${"😀".repeat(100)}`, `/${encodeURIComponent("é".repeat(200))}.md`, `/boise-idaho/${"9".repeat(400)}`]) {
      const r = await server.get(p);
      expect(r.status, p).toBe(404);
      expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await r.text(), p).toContain("We could not find that page");
    }
    const slash = await server.get("/boise-idaho/", { redirect: "manual" });
    expect(slash.status).toBe(301);
    expect(slash.headers.get("location")).toBe("/boise-idaho");
  });

  it("renders the page of a place without editions on demand, inviting its first subscriber", async () => {
    const r = await server.get("/twin-falls-idaho");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(r.headers.get("cache-control")).toBe("public, max-age=300, s-maxage=600");
    const html = await r.text();
    expect(html).toContain("Twin Falls has no edition yet");
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).toContain('name="slug" value="twin-falls-idaho"');
    expect((await server.get("/twin-falls-idaho", { headers: { "If-None-Match": r.headers.get("etag")! } })).status).toBe(304);
  });

  it("answers writes to site paths with 405 and the methods it allows", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const r = await server.get("/cities", { method });
      expect(r.status, method).toBe(405);
      expect(r.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    }
    expect((await server.get("/", { method: "OPTIONS" })).status).toBe(204);
  });

  it("leaves the API and its problem+json answers alone", async () => {
    const cities = await server.get("/api/cities");
    expect(cities.headers.get("content-type")).toMatch(/^application\/json/);
    const missing = await server.get("/api/no-such-endpoint");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const problem = await missing.json() as { type: string };
    // Every problem type links to an anchor that exists on the developer page.
    const dev = await (await server.get("/developers")).text();
    expect(dev).toContain(`id="${problem.type.split("#")[1]}"`);
  });
});

describe("incremental publishing", () => {
  it("re-renders only what the new editions change, and swaps it in", async () => {
    const before = snapshot();
    const liveBefore = fs.readlinkSync(siteDirs(server.dataDir).current);
    const id = addEdition(server.ctx.db, "boise-idaho", "2026-11-21", "Boise: first snow of the season")!;
    await publishEditions(server.ctx, [id]);
    const after = snapshot();
    expect(fs.readlinkSync(siteDirs(server.dataDir).current)).not.toBe(liveBefore);

    const added = [...after.keys()].filter((k) => !before.has(k)).sort();
    // The new edition's page and twin, and the sitemap child of its publication day.
    expect(added).toEqual(["archive:boise-idaho/2026-11-21.html", "archive:boise-idaho/2026-11-21.md", "gen:sitemaps/editions-2026-11-21.xml"]);
    const changed = [...after.keys()].filter((k) => before.has(k) && before.get(k) !== after.get(k));
    // What a Boise edition touches: its city, its state, the global lists, and Boise's edition before it
    // (its page and twin gain a "next" link, so readers can walk forward); never another city or an older edition.
    for (const f of ["gen:boise-idaho.html", "gen:boise-idaho.md", "gen:boise-idaho/feed.xml", "gen:states/idaho.html", "gen:states/idaho.md", "gen:index.html", "gen:cities.html", "gen:feed.xml", "gen:sitemap.xml",
      "archive:boise-idaho/2026-11-20.html", "archive:boise-idaho/2026-11-20.md"]) {
      expect(changed, f).toContain(f);
    }
    for (const f of ["gen:st-louis-missouri.html", "gen:st-louis-missouri.md", "gen:states/missouri.html", "gen:developers.html", "gen:404.html",
      "archive:st-louis-missouri/2026-11-20.html"]) {
      expect(changed, f).not.toContain(f);
    }

    const city = await (await server.get("/boise-idaho")).text();
    expect(city).toContain("Boise: first snow of the season");
    expect((await server.get("/boise-idaho/2026-11-21")).status).toBe(200);
    // The edition before it now links forward to it.
    expect(await (await server.get("/boise-idaho/2026-11-20")).text()).toMatch(/<a href="\/boise-idaho\/2026-11-21" rel="next">/);
    expect(await (await server.get("/boise-idaho/2026-11-20.md")).text()).toContain("Next: [Boise: first snow of the season]");
  });

  it("never shows a reader a missing or half-written page while a publish swaps", async () => {
    const paths = ["/", "/cities", "/boise-idaho", "/states/missouri", "/st-louis-missouri", "/feed.xml", "/boise-idaho.md"];
    let done = false;
    const failures: string[] = [];
    let reads = 0;
    const poll = async () => {
      while (!done) {
        for (const p of paths) {
          const r = await server.get(p);
          const body = await r.text();
          reads++;
          const complete = p.endsWith(".md") ? body.length > 0 : p.endsWith(".xml") ? body.trimEnd().endsWith("</rss>") : body.endsWith("</html>");
          if (r.status !== 200 || !complete) failures.push(`${p}: ${r.status} ${body.length}`);
        }
      }
    };
    const readers = [poll(), poll()];
    for (const [i, date] of ["2026-11-22", "2026-11-23", "2026-11-24"].entries()) {
      const ids = [
        addEdition(server.ctx.db, "st-louis-missouri", date, `St. Louis day ${i}`)!,
        addEdition(server.ctx.db, "kansas-city-missouri", date, `Kansas City day ${i}`)!,
      ];
      await publishEditions(server.ctx, ids);
    }
    done = true;
    await Promise.all(readers);
    expect(reads).toBeGreaterThan(paths.length * 2);
    expect(failures).toEqual([]);
    expect(await (await server.get("/st-louis-missouri")).text()).toContain("St. Louis day 2");
  });

  it("keeps only a few generations, and a full rebuild gives the same pages", async () => {
    const dirs = siteDirs(server.dataDir);
    expect(fs.readdirSync(dirs.generations).length).toBeLessThanOrEqual(3);
    const before = await (await server.get("/kansas-city-missouri")).text();
    await buildSite(server.ctx);
    expect(await (await server.get("/kansas-city-missouri")).text()).toBe(before);
    expect((await server.get("/boise-idaho/2026-11-21.md")).status).toBe(200);
  });
});
