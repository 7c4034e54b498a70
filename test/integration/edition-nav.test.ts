import fs from "node:fs";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { siteDirs } from "../../src/publish/site-dir.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { buildSite, publishEditions } from "../../src/services/site/publish.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// What readers found wrong: older editions did not link forward; "Good morning, New York, New York".
const NY = "new-york-new-york";
let server: TestServer;
const published: Array<{ msg: string; patched?: number; twinsPatched?: number; rerendered?: number }> = [];

beforeAll(async () => {
  server = await startTestServer({ NOW: "2026-11-22T12:00:00.000Z", MAIL_SENDER: "off" });
  server.ctx.log = pino({ level: "info" }, { write: (line: string) => void published.push(JSON.parse(line)) });
  addSubscriber(server.ctx.db, NY, "reader@example.org");
  for (const day of ["2026-11-22", "2026-11-23", "2026-11-24"]) {
    expect((await runMorning(server.ctx, { now: new Date(`${day}T12:00:00.000Z`) })).composed).toBe(1);
  }
});
afterAll(async () => server?.stop());

describe("a dated edition between two others", () => {
  it("links back to the one before and forward to the one after, on the page and in its twin", async () => {
    const page = await (await server.get(`/${NY}/2026-11-23`)).text();
    expect(page).toMatch(/<a href="\/new-york-new-york\/2026-11-22" rel="prev">/);
    expect(page).toMatch(/<a href="\/new-york-new-york\/2026-11-24" rel="next">New York, Nov 24: /);
    const twin = await (await server.get(`/${NY}/2026-11-23.md`)).text();
    expect(twin).toContain(`Previous: [New York, Nov 22: `);
    expect(twin).toContain(`Next: [New York, Nov 24: `);
    expect(twin).toContain(`(${server.url}/${NY}/2026-11-24.md)`);
    // The first, published before the others existed, was rendered again when the next one came.
    const first = await (await server.get(`/${NY}/2026-11-22`)).text();
    expect(first).toMatch(/rel="next">New York, Nov 23: /);
    expect(first).not.toContain('rel="prev"');
    // The newest has nothing after it yet.
    const newest = await (await server.get(`/${NY}/2026-11-24.md`)).text();
    expect(newest).not.toContain("Next:");
  });

  it("patches the new link into the page and twin before it, byte for byte what a full rebuild writes", async () => {
    const archive = path.join(siteDirs(server.dataDir).archive, NY);
    const read = () => Object.fromEntries(fs.readdirSync(archive).sort().map((f) => [f, fs.readFileSync(path.join(archive, f), "utf8")]));
    // The first morning built the site; the second and third each patched the page before theirs
    // and rendered no page again. The third patched the twin too; the second's twin had no nav line
    // yet (the town's first edition), so it was written again.
    expect(published.filter((l) => l.msg === "editions published").map((l) => [l.patched, l.twinsPatched, l.rerendered])).toEqual([[1, 0, 0], [1, 1, 0]]);
    // The pages they replaced were kept aside only until each publish was done.
    expect(fs.existsSync(siteDirs(server.dataDir).retired)).toBe(false);
    const stored = read();
    expect(Object.keys(stored)).toEqual(["2026-11-22.html", "2026-11-22.md", "2026-11-23.html", "2026-11-23.md", "2026-11-24.html", "2026-11-24.md"]);
    await buildSite(server.ctx);
    expect(read()).toEqual(stored);
  });

  it("renders the page and writes the twin before a new edition again when their stored navs are not what it expects", async () => {
    // A page and a twin drawn by an older template: the patch would not find their navs, so both are made again.
    const file = path.join(siteDirs(server.dataDir).archive, NY, "2026-11-24.html");
    const stored = fs.readFileSync(file, "utf8");
    const older = stored.replace(/<nav aria-label="Editions" class="meta"><p>/, '<nav aria-label="Editions" class="meta"><p> ');
    expect(older).not.toBe(stored);
    fs.writeFileSync(file, older);
    const twinFile = path.join(siteDirs(server.dataDir).archive, NY, "2026-11-24.md");
    const twin = fs.readFileSync(twinFile, "utf8");
    expect(twin).toMatch(/\nPrevious: \[New York, Nov 23: [^\n]*\n$/);
    fs.writeFileSync(twinFile, twin.replace(/\nPrevious: /, "\nBefore: "));
    published.length = 0;
    expect((await runMorning(server.ctx, { now: new Date("2026-11-25T12:00:00.000Z") })).composed).toBe(1);
    expect(published.filter((l) => l.msg === "editions published").map((l) => [l.patched, l.twinsPatched, l.rerendered])).toEqual([[0, 0, 1]]);
    const page = await (await server.get(`/${NY}/2026-11-24`)).text();
    expect(page).toMatch(/<a href="\/new-york-new-york\/2026-11-25" rel="next">New York, Nov 25: /);
    expect(page).toMatch(/<a href="\/new-york-new-york\/2026-11-23" rel="prev">/);
    expect(page).not.toContain("<p> ");
    const written = await (await server.get(`/${NY}/2026-11-24.md`)).text();
    expect(written).toMatch(/\nPrevious: \[New York, Nov 23: [^\n]*\) · Next: \[New York, Nov 25: [^\n]*\n$/);
    expect(written).not.toContain("Before: ");
  });

  it("an earlier day stored late: the edition after it links back to it, page and twin", async () => {
    const geoid = server.ctx.db.prepare("SELECT geoid FROM places WHERE slug = ?").pluck().get(NY) as string;
    const id = insertEdition(server.ctx.db, {
      placeGeoid: geoid, date: "2026-11-21", subject: "New York, Nov 21: a day stored late", publishedAt: "2026-11-25T15:00:00.000Z",
      markdown: "# New York, Nov 21: a day stored late\n\nHello.\n", html: "<h1>New York, Nov 21: a day stored late</h1>\n<p>Hello.</p>\n",
    })!;
    await publishEditions(server.ctx, [id]);
    const page = await (await server.get(`/${NY}/2026-11-22`)).text();
    expect(page).toMatch(/<a href="\/new-york-new-york\/2026-11-21" rel="prev">← New York, Nov 21: a day stored late<\/a>/);
    expect(page).toMatch(/rel="next">New York, Nov 23: /);
    expect(await (await server.get(`/${NY}/2026-11-22.md`)).text()).toContain("Previous: [New York, Nov 21: a day stored late]");
    expect(await (await server.get(`/${NY}/2026-11-21`)).text()).toMatch(/rel="next">New York, Nov 22: /);
  });

  it("greets a town named like its state once", async () => {
    const res = await server.get(`/api/archive/${NY}/2026-11-24`);
    const { html } = (await res.json()) as { html: string };
    expect(html).toContain("Good morning, New York. Here is your day");
    expect(html).not.toContain("New York, New York");
  });
});
