import { XMLParser } from "fast-xml-parser";
import { marked, type Tokens } from "marked";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CalendarEvent, DirectoryListing } from "../../src/contract/resources.ts";
import { cityMarkdown } from "../../src/publish/markdown-pages.ts";
import { loadRenderer } from "../../src/publish/site-renderer.ts";
import { buildSite, publishEditions } from "../../src/services/site/publish.ts";
import { CITY_ARCHIVE_ITEMS, CITY_FEED_ITEMS, createSiteData, type SiteData } from "../../src/site/views.ts";
import { launchChromium } from "../helpers/browser.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// A city page, its markdown twin and its feed are rendered from one view (src/site/views.ts), so they
// list the same editions. Checked on the published site: the page in a real browser, the twin with
// marked's lexer, the feed with an XML parser.

const SLUG = "boise-idaho";
const EDITIONS = CITY_ARCHIVE_ITEMS + 5;
let server: TestServer;
let browser: Browser;

const dayAfter = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startTestServer();
  for (let i = 0; i < EDITIONS; i++) addEdition(server.ctx.db, SLUG, dayAfter("2026-09-01", i), `Boise morning number ${i + 1}`);
  await buildSite(server.ctx);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

interface Listed { date: string; subject: string }

/** The archive as a reader sees it on the HTML page. */
async function pageArchive(): Promise<{ latest: string; archive: Listed[] }> {
  const page = await browser.newPage();
  try {
    expect((await page.goto(`${server.url}/${SLUG}`))?.status()).toBe(200);
    const archive = await page.locator("ol.archive li").evaluateAll((items) => items.map((li) => ({
      date: li.querySelector("time")?.getAttribute("datetime") ?? "",
      subject: li.querySelector("a")?.textContent ?? "",
    })));
    return { latest: (await page.locator("article.edition h3").textContent()) ?? "", archive };
  } finally {
    await page.close();
  }
}

/** The archive as the markdown twin lists it, and the subject of its latest edition. */
async function twinArchive(): Promise<{ latest: string; archive: Listed[] }> {
  const res = await server.get(`/${SLUG}.md`);
  expect(res.status).toBe(200);
  const tokens = marked.lexer((await res.text()).replace(/^---\n[\s\S]*?\n---\n/, ""));
  const at = tokens.findIndex((t) => t.type === "heading" && (t as Tokens.Heading).text === "Archive");
  const list = tokens.slice(at).find((t) => t.type === "list") as Tokens.List;
  const archive = list.items.map((item) => {
    const m = /^\[(\d{4}-\d{2}-\d{2})\]\([^)]+\): (.*)$/.exec(item.text);
    return { date: m?.[1] ?? "", subject: m?.[2] ?? "" };
  });
  const latestAt = tokens.findIndex((t) => t.type === "heading" && (t as Tokens.Heading).text === "Latest edition");
  const latest = /^\[([^\]]+)\]/.exec((tokens.slice(latestAt + 1).find((t) => t.type === "paragraph") as Tokens.Paragraph).text)?.[1] ?? "";
  return { latest, archive };
}

async function feedItems(): Promise<Listed[]> {
  const xml = await (await server.get(`/${SLUG}/feed.xml`)).text();
  const items = new XMLParser({ isArray: (n) => n === "item" }).parse(xml).rss.channel.item as Array<{ title: string; link: string }>;
  return items.map((i) => ({ date: i.link.slice(-10), subject: i.title }));
}

async function expectSameArchive(newest: Listed): Promise<void> {
  const page = await pageArchive();
  const twin = await twinArchive();
  expect(page.archive).toHaveLength(CITY_ARCHIVE_ITEMS);
  expect(twin.archive).toEqual(page.archive);
  expect(page.archive[0]).toEqual(newest);
  expect(page.latest).toBe(newest.subject);
  expect(twin.latest).toBe(newest.subject);
  // Newest first, one entry per day, no gaps.
  for (let i = 1; i < page.archive.length; i++) expect(page.archive[i].date).toBe(dayAfter(page.archive[i - 1].date, -1));
  // The feed is the head of the same list.
  expect(await feedItems()).toEqual(page.archive.slice(0, CITY_FEED_ITEMS));
}

describe("a city page, its twin and its feed", () => {
  it("list the same newest editions after a full build, and say there are older ones", async () => {
    await expectSameArchive({ date: dayAfter("2026-09-01", EDITIONS - 1), subject: `Boise morning number ${EDITIONS}` });
    const page = await (await server.get(`/${SLUG}`)).text();
    expect(page).toContain(`The newest ${CITY_ARCHIVE_ITEMS} of ${EDITIONS} editions`);
    expect(await (await server.get(`/${SLUG}.md`)).text()).toContain("Older editions: every date is listed by");
    // The API still lists every date.
    const city = await (await server.get(`/api/city/${SLUG}`)).json() as { archives: Listed[] };
    expect(city.archives).toHaveLength(EDITIONS);
  });

  it("still agree after a morning's incremental publish", async () => {
    const date = dayAfter("2026-09-01", EDITIONS);
    const id = addEdition(server.ctx.db, SLUG, date, "Boise: the newest morning")!;
    await publishEditions(server.ctx, [id]);
    await expectSameArchive({ date, subject: "Boise: the newest morning" });
  });
});

describe("the town's calendar and directory on the city page and its twin", () => {
  const events: CalendarEvent[] = [
    { id: "ev1", title: "Farmers market", description: "Capitol Boulevard, 9 to 1", url: "https://example.org/market", startsAt: "2026-11-28", featured: true, sponsored: true },
    { id: "ev2", title: "Library story hour", description: "", url: null, startsAt: "2026-11-29T10:00", featured: false, sponsored: false, venue: "Boise Public Library" },
  ];
  const directory: DirectoryListing[] = [
    { id: "d1", title: "Main Street Bakery", description: "Bread and pastries since 1998", url: "https://example.org/bakery", featured: true, sponsored: true, endsOn: "2026-12-20", address: "802 W Bannock St", category: "Bakery" },
  ];

  /** The real read model, with listings in Boise's view (the listings store is not connected yet). */
  function siteWith(listings: { events: CalendarEvent[]; directory: DirectoryListing[] }): SiteData {
    const site = createSiteData(server.ctx.db, server.url);
    return { ...site, city: (slug) => { const v = site.city(slug); return v && { ...v, ...listings }; } };
  }

  async function sections(site: SiteData) {
    const html = (await (await loadRenderer()).render(`/${SLUG}`, site))!;
    const page = await browser.newPage();
    try {
      await page.setContent(html);
      const items = (id: string) => page.locator(`section[aria-labelledby=${id}] li`).allTextContents();
      return {
        calendar: await items("calendar-heading"), directory: await items("directory-heading"),
        headings: await page.locator("h2").allTextContents(),
        links: await page.locator("section[aria-labelledby=calendar-heading] a, section[aria-labelledby=directory-heading] a").evaluateAll((as) => as.map((a) => `${a.getAttribute("href")} ${a.getAttribute("rel")}`)),
      };
    } finally {
      await page.close();
    }
  }

  it("are shown in both when the view has them", async () => {
    const site = siteWith({ events, directory });
    const page = await sections(site);
    // Paid placements say Sponsored and their links say rel="sponsored"; times in words, never ISO, which readers cannot read at a glance.
    expect(page.calendar).toEqual(["Sponsored Farmers market, Sat, Nov 28, all day: Capitol Boulevard, 9 to 1", "Library story hour, Sun, Nov 29, 10:00 AM at Boise Public Library"]);
    expect(page.directory).toEqual(["Sponsored Main Street Bakery (Bakery, 802 W Bannock St): Bread and pastries since 1998"]);
    expect(page.links).toEqual(["https://example.org/market sponsored", "https://example.org/bakery sponsored"]);

    const tokens = marked.lexer(cityMarkdown(server.url, site.city(SLUG)!).replace(/^---\n[\s\S]*?\n---\n/, ""));
    const listAfter = (heading: string) => {
      const at = tokens.findIndex((t) => t.type === "heading" && (t as Tokens.Heading).text === heading);
      expect(at, heading).toBeGreaterThan(-1);
      return (tokens.slice(at).find((t) => t.type === "list") as Tokens.List).items.map((i) => i.text);
    };
    expect(listAfter("Calendar")).toEqual([
      "Sponsored: [Farmers market](https://example.org/market), Sat, Nov 28, all day: Capitol Boulevard, 9 to 1",
      "Library story hour, Sun, Nov 29, 10:00 AM at Boise Public Library",
    ]);
    expect(listAfter("Directory")).toEqual(["Sponsored: [Main Street Bakery](https://example.org/bakery) (Bakery, 802 W Bannock St): Bread and pastries since 1998"]);
  });

  it("leave no trace when the town has none", async () => {
    const site = createSiteData(server.ctx.db, server.url);
    expect(site.city(SLUG)).toMatchObject({ events: [], directory: [] });
    const page = await sections(site);
    expect(page.calendar).toEqual([]);
    expect(page.directory).toEqual([]);
    expect(page.headings).not.toContain("Calendar");
    expect(page.headings).not.toContain("Directory");
    const twin = await (await server.get(`/${SLUG}.md`)).text();
    expect(twin).not.toMatch(/^## (Calendar|Directory)$/m);
  });
});
