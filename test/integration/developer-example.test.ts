import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../src/services/site/publish.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startSiteWithEditions } from "../helpers/site-pages.ts";

// The developer guide's quick start names one edition as markdown. It once named a fixed date that
// no fresh install has (a 404); now it is an edition the site has (its first), and before the first one
// a command that reads the newest date from the city itself.

let server: TestServer;
let empty: TestServer;

beforeAll(async () => {
  server = await startSiteWithEditions();
  empty = await startTestServer();
  await buildSite(empty.ctx);
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await empty?.stop();
});

/** The quick start's "one edition as markdown" command, from the page's text. */
const exampleLine = (text: string) => text.split("\n").find((l) => l.includes("/api/archive/") && l.includes("as markdown"));

describe("the developer guide's example edition", () => {
  it("is one the site has, on the page and its twin, and it answers 200 with markdown", async () => {
    for (const p of ["/developers", "/developers.md"]) {
      const line = exampleLine(await (await server.get(p)).text());
      expect(line, p).toBeDefined();
      const path = /\/api\/archive\/[a-z0-9-]+\/\d{4}-\d{2}-\d{2}\.md/.exec(line!)?.[0];
      expect(path, line).toBeDefined();
      const res = await server.get(path!);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
      // The site's first edition (its helper stores Nov 20 and 21 of three towns).
      expect(path).toMatch(/\/2026-11-20\.md$/);
    }
  });

  it("before the first edition, reads the city's newest date instead of naming one", async () => {
    const line = exampleLine(await (await empty.get("/developers.md")).text());
    expect(line).toContain(`${empty.url}/api/archive/st-louis-missouri/$(curl -s ${empty.url}/api/city/st-louis-missouri | jq -r '.archives[0].date').md`);
    expect(line).not.toMatch(/\d{4}-\d{2}-\d{2}\.md/);
  });
});
