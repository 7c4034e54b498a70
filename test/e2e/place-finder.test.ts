import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlaceIndex } from "../../src/site/place-index.ts";
import { openDatabase } from "../../src/store/db.ts";
import { freshDataDir } from "../helpers/server.ts";
import { launchChromium } from "../helpers/browser.ts";

// The place finder in a real browser (Debian chromium): a tiny page served from 127.0.0.1 with the
// component's markup, src/site/place-finder.js, minisearch's ES build and the real index of every
// place. Typing a misspelled town offers the right one; choosing it goes to the town's page.

const ROOT = path.resolve(import.meta.dirname, "../..");
const AXE = path.join(ROOT, "node_modules/axe-core/axe.min.js");

// The markup of src/components/PlaceFinder.astro, as it renders with the default props.
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Find your town</title></head><body><main>
<h1>citydaily</h1>
<div class="place-finder" data-place-finder data-index-url="/place-index.json" data-base="">
  <label for="place-finder-input">Find your town</label>
  <input id="place-finder-input" type="text" role="combobox" aria-autocomplete="list" aria-expanded="false"
    aria-controls="place-finder-list" aria-describedby="place-finder-hint" autocomplete="off" spellcheck="false">
  <p id="place-finder-hint">Type a U.S. town's name; typos are fine.</p>
  <ul id="place-finder-list" role="listbox" aria-label="Matching towns" hidden></ul>
  <p data-place-finder-status aria-live="polite"></p>
</div>
<script type="module" src="/place-finder.js"></script>
</main></body></html>`;

let browser: Browser;
let server: http.Server;
let origin: string;
let dataDir: string;
const outside: string[] = [];

beforeAll(async () => {
  dataDir = freshDataDir();
  const db = openDatabase(path.join(dataDir, "citydaily.db"));
  const index = buildPlaceIndex(db);
  db.close();
  const files: Record<string, [string, string]> = {
    "/": [PAGE, "text/html; charset=utf-8"],
    "/place-finder.js": [fs.readFileSync(path.join(ROOT, "src/site/place-finder.js"), "utf8"), "text/javascript"],
    "/place-ranking.js": [fs.readFileSync(path.join(ROOT, "src/site/place-ranking.js"), "utf8"), "text/javascript"],
    "/minisearch.js": [fs.readFileSync(path.join(ROOT, "node_modules/minisearch/dist/es/index.js"), "utf8"), "text/javascript"],
    "/place-index.json": [index, "application/json"],
  };
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const file = files[url.pathname];
    if (file) { res.writeHead(200, { "Content-Type": file[1] }).end(file[0]); return; }
    // Any other path stands for a town page.
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(`<!doctype html><title>${url.pathname}</title><h1>Town page ${url.pathname}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

async function open(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  // Nothing may come from the internet: only our 127.0.0.1 server answers.
  await page.route("**/*", (route) => {
    if (route.request().url().startsWith(origin)) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  await page.goto(origin + "/");
  return { page, errors };
}

const options = (page: Page) => page.locator("#place-finder-list [role=option]");

describe("place finder", () => {
  it("offers Springfield for 'Sprngfield'", async () => {
    const { page, errors } = await open();
    const input = page.getByRole("combobox", { name: "Find your town" });
    await input.fill("Sprngfield");
    await expect.poll(() => options(page).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    const texts = await options(page).allTextContents();
    expect(texts.slice(0, 4).every((t) => t.startsWith("Springfield"))).toBe(true);
    expect(await input.getAttribute("aria-expanded")).toBe("true");
    expect(await page.locator("[data-place-finder-status]").textContent()).toMatch(/towns? found/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("offers Tucson first for 'Tuscon', and Enter goes to its page", async () => {
    const { page, errors } = await open();
    const input = page.getByRole("combobox", { name: "Find your town" });
    await input.pressSequentially("Tuscon");
    await expect.poll(async () => (await options(page).allTextContents())[0], { timeout: 15_000 }).toBe("Tucson, Arizona");
    await input.press("ArrowDown");
    expect(await input.getAttribute("aria-activedescendant")).toBe(await options(page).first().getAttribute("id"));
    expect(await options(page).first().getAttribute("aria-selected")).toBe("true");
    await input.press("Enter");
    await page.waitForURL(`${origin}/tucson-arizona`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("tells places of the same name apart and is accessible", async () => {
    const { page } = await open();
    const input = page.getByRole("combobox", { name: "Find your town" });
    await input.fill("kailua");
    await expect.poll(() => options(page).count(), { timeout: 15_000 }).toBeGreaterThan(1);
    const texts = await options(page).allTextContents();
    expect(texts).toContain("Kailua (Honolulu County), Hawaii");
    expect(texts).toContain("Kailua (Hawaii County), Hawaii");
    // Evaluated over the devtools protocol: the page's CSP (rightly) refuses an injected inline script.
  await page.evaluate(fs.readFileSync(AXE, "utf8"));
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run: (s: string) => Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe.run("[data-place-finder]");
      return result.violations.map((v) => `${v.id} (${v.impact})`);
    });
    expect(violations).toEqual([]);
    await input.press("Escape");
    expect(await page.locator("#place-finder-list").isHidden()).toBe(true);
    await page.close();
  });

  // Typos readers make: a missing letter at the end, words run together, a typo shared with a rarer name.
  async function suggestionsFor(typed: string): Promise<string[]> {
    const { page, errors } = await open();
    const input = page.getByRole("combobox", { name: "Find your town" });
    await input.pressSequentially(typed);
    await expect.poll(() => options(page).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    const texts = await options(page).allTextContents();
    expect(errors).toEqual([]);
    await page.close();
    return texts;
  }

  it("offers Pittsburgh, PA first for 'Pittsburg', with the smaller Pittsburgs after it", async () => {
    const texts = await suggestionsFor("Pittsburg");
    expect(texts[0]).toBe("Pittsburgh, Pennsylvania");
    expect(texts).toContain("Pittsburg, California");
  });

  it("offers San Francisco for 'Sanfrancisco'", async () => {
    expect((await suggestionsFor("Sanfrancisco"))[0]).toBe("San Francisco, California");
  });

  it("offers Breckenridge, CO before Brackenridge, PA for 'Breckenrige'", async () => {
    const texts = await suggestionsFor("Breckenrige");
    const co = texts.indexOf("Breckenridge, Colorado");
    expect(co).toBeGreaterThanOrEqual(0);
    const pa = texts.indexOf("Brackenridge, Pennsylvania");
    if (pa >= 0) expect(co).toBeLessThan(pa);
  });

  it("loaded nothing from outside 127.0.0.1", () => {
    expect(outside).toEqual([]);
  });
});
