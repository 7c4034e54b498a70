import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../src/services/site/publish.ts";
import { geoidOf } from "../helpers/seed.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { launchChromium } from "../helpers/browser.ts";

// The built pages in a real browser (Debian chromium): they render, the subscribe form works,
// nothing logs an error, and axe-core finds no serious or critical accessibility violation.

const AXE = path.resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js");
let server: TestServer;
let browser: Browser;

function seedEdition(slug: string, date: string, subject: string) {
  const daily = Array.from({ length: 7 }, (_, i) => ({
    date: new Date(Date.parse(`${date}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
    high: 48 + i * 2, low: 31 + i, code: i % 2 ? 3 : 61, precipitationChance: (i * 15) % 100,
  }));
  insertEdition(server.ctx.db, {
    placeGeoid: geoidOf(server.ctx.db, slug), date, subject,
    markdown: `# ${subject}\n\nGood morning.\n`,
    html: `<h1>${subject}</h1>\n<h2>Weather</h2>\n<p>High 48°F, low 31°F. Light rain after noon.</p>\n<h2>Around town</h2>\n<p>The library opens late on Fridays.</p>\n`,
    weather: { today: { high: 48, low: 31, current: 40, code: 61, condition: "Light rain", emoji: "🌦️" }, daily },
    publishedAt: `${date}T13:00:00.000Z`,
  });
}

beforeAll(async () => {
  server = await startTestServer();
  seedEdition("boise-idaho", "2026-11-20", "Boise: light rain after noon");
  seedEdition("boise-idaho", "2026-11-21", "Boise: clearing and cold");
  seedEdition("st-louis-missouri", "2026-11-21", "St. Louis: windy and mild");
  await buildSite(server.ctx);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens a page, recording console errors and failed requests. */
async function open(pathname: string, viewport = { width: 1200, height: 900 }): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("requestfailed", (r) => errors.push(`failed: ${r.url()}`));
  const response = await page.goto(server.url + pathname);
  expect(response?.status(), pathname).toBe(200);
  return { page, errors };
}

async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over the devtools protocol: the page's CSP (rightly) refuses an injected inline script.
  await page.evaluate(fs.readFileSync(AXE, "utf8"));
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return axe.run(document, { resultTypes: ["violations"] });
  });
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe("the site in a browser", () => {
  it("renders a city page: latest edition, forecast chart, census, archive", async () => {
    const { page, errors } = await open("/boise-idaho");
    expect(await page.locator("h1").textContent()).toBe("Boise Daily");
    expect(await page.title()).toBe("Boise, Idaho · citydaily");
    await expect(page.locator("main article.edition h3").textContent()).resolves.toBe("Boise: clearing and cold");
    expect(await page.locator("figure.chart svg[role=img] title").first().textContent()).toMatch(/Forecast for Boise/);
    expect(await page.locator("table.data th", { hasText: "Population" }).count()).toBe(1);
    expect(await page.locator("ol.archive li").count()).toBe(2);
    expect(await page.locator("header.site, main, footer.site, nav[aria-label=Main]").count()).toBe(4);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("renders an edition with its forecast, on a phone too", async () => {
    const { page, errors } = await open("/boise-idaho/2026-11-21", { width: 375, height: 740 });
    expect(await page.locator("h1").textContent()).toBe("Boise: clearing and cold");
    expect(await page.locator("article.edition h2", { hasText: "Around town" }).count()).toBe(1);
    expect(await page.locator("a[rel=prev]").getAttribute("href")).toBe("/boise-idaho/2026-11-20");
    // Nothing wider than the phone's screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("posts the subscribe form and shows the result", async () => {
    const { page, errors } = await open("/st-louis-missouri?utm_source=test-suite");
    const form = page.locator("form[data-subscribe]");
    await form.locator("input[name=email]").fill("not-an-email");
    await form.locator("button").click();
    const result = page.locator("[data-result]");
    await expect.poll(() => result.getAttribute("data-state")).toBe("error");
    expect(await result.textContent()).toMatch(/email/i);

    await form.locator("input[name=email]").fill("new.reader@example.com");
    await form.locator("button").click();
    await expect.poll(() => result.getAttribute("data-state")).toBe("ok");
    expect(await result.textContent()).toMatch(/inbox/i);
    const row = server.ctx.db.prepare("SELECT s.landing_path, s.utm_source FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.email = ? AND p.slug = ?")
      .get("new.reader@example.com", "st-louis-missouri") as { landing_path: string; utm_source: string } | undefined;
    expect(row).toEqual({ landing_path: "/st-louis-missouri", utm_source: "test-suite" });
    // The failed first attempt is a 400 the page handled; the browser reports such responses as console errors.
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    await page.close();
  });

  it("offers the place finder on home, and its suggestion leads to the town's page", async () => {
    const { page, errors } = await open("/");
    const input = page.locator("[data-place-finder] input[role=combobox]");
    await input.fill("Twin Fals");
    const option = page.locator("[data-place-finder] [role=option]", { hasText: "Twin Falls" }).first();
    await option.waitFor();
    expect(await option.getAttribute("data-href")).toBe("/twin-falls-idaho");
    await option.dispatchEvent("mousedown");
    await page.waitForURL(`${server.url}/twin-falls-idaho`);
    expect(await page.locator("h1").textContent()).toBe("Twin Falls Daily");
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("renders home, the directory with its map, a state page, the developer page and the 404 page accessibly", async () => {
    for (const p of ["/", "/cities", "/states/missouri", "/developers"]) {
      const { page, errors } = await open(p);
      expect(await page.locator("h1").count(), p).toBe(1);
      expect(await seriousViolations(page), p).toEqual([]);
      expect(errors, p).toEqual([]);
      if (p === "/cities") expect(await page.locator("svg circle").count()).toBe(2);
      if (p === "/developers") expect(await page.locator("#error-city_not_found").count()).toBe(1);
      await page.close();
    }
    const page = await browser.newPage();
    const response = await page.goto(`${server.url}/nowhere-at-all-ohio`);
    expect(response?.status()).toBe(404);
    expect(await page.locator("h1").textContent()).toBe("We could not find that page");
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });
});
