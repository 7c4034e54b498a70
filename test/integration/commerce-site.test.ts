import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../../src/services/site/publish.ts";
import { addEdition, addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { BUSINESS, EVENT, payOnHostedPage } from "../helpers/commerce.ts";

// Published listings where readers see them: the town's static city page and its markdown twin are
// re-rendered when a listing goes live, and say the same as /api/city/{slug}.

const NOW = "2026-11-22T18:00:00.000Z";
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", NOW, ADMIN_TOKEN: "admin-secret" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
  addEdition(server.ctx.db, "boise-idaho", "2026-11-22", "Boise: clear and cold");
  await buildSite(server.ctx);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** Polls a page until it contains `text` (the re-render runs in the background after the callback). */
async function pageWith(path: string, text: string): Promise<string> {
  for (let i = 0; i < 40; i++) {
    const body = await (await server.get(path)).text();
    if (body.includes(text)) return body;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${path} never showed ${text}`);
}

describe("listings on the town's pages", () => {
  it("a paid featured event appears on the city page, its twin and the API, escaped, with its link", async () => {
    const title = "Lantern Walk & Cider Social";
    const res = await server.post("/api/listing-checkout", { ...EVENT, tier: "featured", title, startsAt: "2026-11-28", venue: "Julia Davis Park" });
    const created = (await res.json()) as { orderId: string; checkoutUrl: string };
    expect((await payOnHostedPage(created.checkoutUrl, "$25.00")).status).toBe(200);
    expect((await (await server.get(`/api/listing-order?id=${created.orderId}`)).json()).published).toBe(true);

    const html = await pageWith("/boise-idaho", "Lantern Walk &amp; Cider Social");
    expect(html).toContain(`href="${EVENT.url}"`);
    expect(html).toMatch(/id="calendar-heading"|Calendar/);
    expect(html).toContain("2026-11-28");
    // Markdown escapes the ampersand the way its own syntax needs.
    const twin = await pageWith("/boise-idaho.md", "Lantern Walk");
    expect(twin).toContain("## Calendar");
    expect(twin).toContain(EVENT.url);
    const api = (await (await server.get("/api/city/boise-idaho")).json()) as { events: Array<{ title: string; featured: boolean }> };
    expect(api.events).toEqual([expect.objectContaining({ title, featured: true })]);
  });

  it("a free business listing shows in the directory once staff approve it, and not before", async () => {
    const res = await server.post("/api/business-checkout", { ...BUSINESS, tier: "free", title: "Rosemary Bakery" });
    const { orderId } = (await res.json()) as { orderId: string };
    expect((await (await server.get("/boise-idaho.md")).text())).not.toContain("Rosemary Bakery");
    const approved = await server.post(`/admin/orders/${orderId}/approve`, {}, { headers: { Authorization: "Bearer admin-secret" } });
    expect(approved.status).toBe(200);
    const twin = await pageWith("/boise-idaho.md", "Rosemary Bakery");
    expect(twin).toContain("## Directory");
    const html = await pageWith("/boise-idaho", "Rosemary Bakery");
    expect(html).toContain("directory-heading");
  });
});
