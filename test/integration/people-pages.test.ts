import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { EVENT } from "../helpers/commerce.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { SmtpSink } from "../helpers/smtp-sink.ts";

// The buying and leasing pages over real HTTP (the browser flows are in test/e2e/buy-listing.test.ts):
// the lease page subscribes the operator only when asked, unknown towns and orders are pages (not
// JSON), old result links lead to the order page, and every email footer links to the buying page.

let sink: SmtpSink;
let server: TestServer;
beforeAll(async () => {
  sink = await new SmtpSink().start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_SENDER: "off", NOW: "2026-11-22T12:00:00.000Z", SUBSCRIBE_RATE_LIMIT: "1000" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
});
afterAll(async () => {
  await server?.stop();
  await sink?.stop();
});

const form = (path: string, fields: Record<string, string>) => fetch(`${server.url}${path}`, {
  method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString(),
});
const subscribers = (slug: string) => server.ctx.db.prepare("SELECT email FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE p.slug = ?").pluck().all(slug);

describe("the lease page", () => {
  it("reserves the town and sends the person to the payment page; subscribes them only when the box is ticked", async () => {
    const res = await fetch(`${server.url}/lease/caldwell-idaho`);
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self';"); // the local checkout is on this site
    const page = await res.text();
    expect(page).toContain("$10.00 a month");
    expect(page).toMatch(/<input type="checkbox" id="subscribe" name="subscribe" value="1">/); // never ticked for them
    const plain = await form("/lease/caldwell-idaho", { email: "op@example.com" });
    expect(plain.status).toBe(303);
    expect(plain.headers.get("location")).toMatch(/\/checkout\/cs_local_/);
    expect(subscribers("caldwell-idaho")).toEqual([]);
    // The town is reserved now: the page says so instead of offering a second checkout.
    const taken = await form("/lease/caldwell-idaho", { email: "late@example.com" });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain("is leased, or reserved by a checkout in progress");

    const ticked = await form("/lease/nampa-idaho", { email: "op2@example.com", subscribe: "1" });
    expect(ticked.status).toBe(303);
    expect(subscribers("nampa-idaho")).toEqual(["op2@example.com"]);
    await sendPendingMail(server.ctx);
    expect(sink.to("op2@example.com").map((m) => m.parsed.subject)).toContain("Welcome to the Nampa, Idaho daily");
  });

  it("names a bad address next to its field, keeping the box as it was", async () => {
    const res = await form("/lease/meridian-idaho", { email: "nope", subscribe: "1" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain("Enter your email address, like name@example.com.");
    expect(html).toMatch(/id="subscribe" name="subscribe" value="1" checked/);
    expect(subscribers("meridian-idaho")).toEqual([]);
  });
});

describe("pages, not JSON, for people", () => {
  it("unknown towns and orders answer 404 pages; old result links lead to the order page", async () => {
    for (const path of ["/advertise/atlantis-idaho", "/lease/atlantis-idaho", "/orders/lo_nope", `/orders/lo_${crypto.randomUUID()}`]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toBe("text/html; charset=utf-8");
    }
    const order = await (await server.post("/api/listing-checkout", EVENT)).json();
    const done = await fetch(`${server.url}/purchase/done?order=${order.orderId}`, { redirect: "manual" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`/orders/${order.orderId}`);
    const page = await fetch(`${server.url}/orders/${order.orderId}`);
    expect(page.headers.get("refresh")).toBe("30");
    const html = await page.text();
    expect(html).toContain("Waiting for your payment");
    // Its link's deadline on Boise's clock (12:00 UTC and 23 hours), not in UTC.
    expect(html).toContain("the payment link is open until 4:00 AM MST on November 23.");
    expect(html).not.toContain("UTC");
    expect(html).toContain(`href="${order.checkoutUrl}"`);
  });

  it("before any publish, a server page's stylesheet and script are served from the renderer's build", async () => {
    const html = await (await fetch(`${server.url}/advertise/boise-idaho`)).text();
    const css = /<link rel="stylesheet" href="(\/_astro\/[^"]+\.css)">/.exec(html)?.[1];
    const js = /<script type="module" src="(\/_astro\/[^"]+\.js)">/.exec(html)?.[1];
    for (const asset of [css, js]) {
      expect(asset).toBeDefined();
      const res = await fetch(`${server.url}${asset}`);
      expect(res.status, asset).toBe(200);
    }
    expect(html).toContain('<a class="brand" href="/">city<span>daily</span></a>');
  });

  it("the buying form's fields take as many characters as the contract does", async () => {
    for (const [kind, fields] of [["event", { title: 120, description: 1000, venue: 200, url: 2000, buyerEmail: 254 }], ["business", { title: 120, address: 200, category: 60 }]] as const) {
      const html = await (await fetch(`${server.url}/advertise/boise-idaho?kind=${kind}`)).text();
      for (const [field, max] of Object.entries(fields)) {
        expect(new RegExp(`<(input|textarea) id="${field}"[^>]* maxlength="${max}"`).test(html), `${kind} ${field}`).toBe(true);
      }
    }
  });

  it("a town without a newsletter offers to start it and to lease it instead of a form", async () => {
    const html = await (await fetch(`${server.url}/advertise/twin-falls-idaho`)).text();
    expect(html).toContain("Twin Falls, Idaho has no newsletter yet");
    expect(html).toContain('href="/twin-falls-idaho#subscribe-twin-falls-idaho-heading"');
    expect(html).toContain('href="/lease/twin-falls-idaho"');
    expect(html).not.toContain('id="listing-form"');
  });

  it("every email footer links to the town's buying page", async () => {
    await server.post("/api/subscribe", { email: "footer@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
    await sendPendingMail(server.ctx);
    const welcome = sink.to("footer@example.org")[0];
    expect(welcome.parsed.text).toContain(`Advertise in Boise or list your event: ${server.url}/advertise/boise-idaho`);
    expect(String(welcome.parsed.html)).toContain(`href="${server.url}/advertise/boise-idaho"`);
  });
});
