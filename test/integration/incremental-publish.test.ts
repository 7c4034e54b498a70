import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderInWorker, runRenderJob, type RenderJob } from "../../src/publish/render-pages.ts";
import { siteDirs } from "../../src/publish/site-dir.ts";
import { databaseFile } from "../../src/store/db.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// A morning writes what its new editions change and keeps the rest, so its cost follows its editions: a city feed keeps the
// items it already carries instead of reading and rendering ten editions again.
const TOWN = "ely-nevada";
let server: TestServer;
const liveFile = (rel: string) => path.join(fs.realpathSync(siteDirs(server.dataDir).current), rel);
const morning = async (day: string) => expect((await runMorning(server.ctx, { now: new Date(`${day}T15:00:00.000Z`) })).composed).toBe(1);

beforeAll(async () => {
  server = await startTestServer({ NOW: "2026-11-20T15:00:00.000Z", MAIL_SENDER: "off" });
  addSubscriber(server.ctx.db, TOWN, "reader@example.org");
  for (const day of ["2026-11-20", "2026-11-21", "2026-11-22"]) await morning(day);
});
afterAll(async () => server?.stop());

describe("a city feed after a morning", () => {
  it("is byte for byte the feed a full rebuild writes", async () => {
    const feed = await (await server.get(`/${TOWN}/feed.xml`)).text();
    expect(feed.match(/<item>/g)).toHaveLength(3);
    expect(feed).toContain(`<link>${server.url}/${TOWN}/2026-11-22</link>`);
    await buildSite(server.ctx);
    expect(await (await server.get(`/${TOWN}/feed.xml`)).text()).toBe(feed);
  });

  it("keeps the items it already carries, and renders them again when their format changed", async () => {
    // Mark the kept item of Nov 21 in the live feed: the next morning carries the mark over.
    const file = liveFile(`${TOWN}/feed.xml`);
    const live = fs.readFileSync(file, "utf8");
    const item = live.slice(live.indexOf("<item>\n<title>"), live.indexOf("</item>") + 7);
    expect(item).toContain(`/${TOWN}/2026-11-22</link>`); // newest first
    const nov21 = new RegExp(`(<link>[^<]*/${TOWN}/2026-11-21</link>[\\s\\S]*?<description>)`);
    fs.writeFileSync(file, live.replace(nov21, "$1KEPT "));
    await morning("2026-11-23");
    let feed = await (await server.get(`/${TOWN}/feed.xml`)).text();
    expect(feed.match(/<item>/g)).toHaveLength(4);
    expect(feed.indexOf(`/${TOWN}/2026-11-23</link>`)).toBeLessThan(feed.indexOf(`/${TOWN}/2026-11-22</link>`));
    expect(feed).toMatch(nov21);
    expect(feed).toContain("<description>KEPT ");

    // A live site whose feeds were written in another item format: every item is rendered again.
    const info = liveFile(".build.json");
    fs.writeFileSync(info, JSON.stringify({ ...JSON.parse(fs.readFileSync(info, "utf8")), feedItemFormat: 0 }));
    await morning("2026-11-24");
    feed = await (await server.get(`/${TOWN}/feed.xml`)).text();
    expect(feed.match(/<item>/g)).toHaveLength(5);
    expect(feed).not.toContain("KEPT");
    await buildSite(server.ctx);
    expect(await (await server.get(`/${TOWN}/feed.xml`)).text()).toBe(feed);
  });
});

describe("the morning's renderers", () => {
  it("share pages: the worker and the main thread each take the next one, and every page is rendered once", async () => {
    const generation = fs.mkdtempSync(path.join(server.dataDir, "shared-"));
    const pages = [`/${TOWN}`, "/", "/cities", "/states", "/states/nevada"];
    const job: RenderJob = {
      dbFile: databaseFile(server.dataDir), baseUrl: server.url, now: new Date().toISOString(), placeFinder: false,
      archive: path.join(generation, "archive"), generation, editions: [], pages: [], shared: { pages, cursor: new SharedArrayBuffer(4) },
    };
    const [worker, here] = await Promise.all([renderInWorker(job), runRenderJob(job)]);
    expect(worker.written + here.written).toBe(pages.length);
    expect(fs.readdirSync(generation, { recursive: true }).filter((f) => String(f).endsWith(".html")).sort())
      .toEqual(["cities.html", `${TOWN}.html`, "index.html", "states.html", "states/nevada.html"].sort());
    expect(fs.readFileSync(path.join(generation, `${TOWN}.html`), "utf8")).toContain("Ely");
  });
});
