import { HtmlValidate } from "html-validate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.ts";
import { PAGE_TYPES, startSiteWithEditions } from "../helpers/site-pages.ts";

// Every page type, as the server sends it, passes html-validate's recommended rules (each rule below was once broken):
// no raw spaces in the favicon's data URL, a required select with an empty first option, no
// obsolete `align` on tables rendered from markdown, HTML-style void elements, titles of at most
// 70 characters.

let server: TestServer;
const validator = new HtmlValidate({
  extends: ["html-validate:recommended"],
  rules: {
    // Inline SVG charts set presentation attributes (font-size, fill) that the rule reads as styling.
    "no-inline-style": "off",
    // The place finder is an ARIA 1.2 combobox on a text input with a listbox of suggestions (the
    // reader types any of 32,000 towns); a native <select> cannot do that.
    "prefer-native-element": ["error", { exclude: ["combobox", "listbox"] }],
  },
});

beforeAll(async () => {
  server = await startSiteWithEditions();
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe("clean markup", () => {
  for (const [type, path] of Object.entries(PAGE_TYPES)) {
    it(`${type} (${path}) has no html-validate error`, async () => {
      const response = await fetch(server.url + path);
      expect(response.status).toBe(type === "not found" ? 404 : 200);
      const html = await response.text();
      const report = await validator.validateString(html, `${path}.html`);
      const errors = report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId} at ${m.line}:${m.column}: ${m.message}`));
      expect(errors).toEqual([]);
      const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "";
      expect(title.length).toBeGreaterThan(0);
      expect(title.length).toBeLessThanOrEqual(70);
    });
  }

  it("/states lists states apart from D.C. and Puerto Rico, /states/ leads there, and its markdown twin exists", async () => {
    const page = await fetch(server.url + "/states/");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1>States and territories</h1>");
    expect(html).toMatch(/3 cities in 2 states and Puerto Rico/);
    expect(html).toMatch(/District and territories[\s\S]*Puerto Rico/);
    const twin = await fetch(server.url + "/states.md");
    expect(twin.status).toBe(200);
    expect(await twin.text()).toContain(`[Idaho](${server.url}/states/idaho.md)`);
    const sitemap = await (await fetch(server.url + "/sitemaps/pages.xml")).text();
    expect(sitemap).toContain(`<loc>${server.url}/states</loc>`);
  });

  it("names a city's state apart from the city when they share a name, and its time zone as readers say it", async () => {
    const html = await (await fetch(server.url + PAGE_TYPES["city same name as state"])).text();
    expect(html).toContain(">New York State</a>");
    expect(html).toContain("on Eastern Time");
    expect(html).not.toContain("America/New York");
    expect(html).toContain("Principal county: Kings County");
  });

  it("the edition's web page leaves out the email footer, and its tables carry no align attribute", async () => {
    const html = await (await fetch(server.url + PAGE_TYPES.edition)).text();
    expect(html).toContain("<h2>Weather</h2>");
    expect(html).not.toContain("Read this edition online");
    expect(html).not.toMatch(/\salign="/);
  });
});
