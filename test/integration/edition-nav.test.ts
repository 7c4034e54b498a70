import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMorning } from "../../src/services/morning.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Reader defects of issue #18: older editions link forward; "Good morning, New York, New York".
const NY = "new-york-new-york";
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ NOW: "2026-11-22T12:00:00.000Z", MAIL_SENDER: "off" });
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

  it("greets a town named like its state once", async () => {
    const res = await server.get(`/api/archive/${NY}/2026-11-24`);
    const { html } = (await res.json()) as { html: string };
    expect(html).toContain("Good morning, New York. Here is your day");
    expect(html).not.toContain("New York, New York");
  });
});
