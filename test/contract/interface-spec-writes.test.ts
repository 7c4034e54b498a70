import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendPendingMail } from "../../src/services/mail/sender.ts";
import { payOnHostedPage } from "../helpers/commerce.ts";
import { getWith, signIn } from "../helpers/operator.ts";
import { TODAY, TOWN, expectFields, expectProblem, jsonOf, startSpecServer, type SpecServer } from "./spec-server.ts";

// The interface spec's writes (section 4, Writes; section 3's lease; section 6's polling), each
// request sent exactly as the spec documents it, against the real server, SQLite and SMTP. The spec
// is the user's contract: where an issue asked for more than it documents (an email to hold a town),
// the spec's body still works here.

let spec: SpecServer;
const post = (path: string, body: unknown) => spec.server.post(path, body);

beforeAll(async () => {
  spec = await startSpecServer({ morning: false });
}, 120_000);
afterAll(async () => {
  await spec?.stop();
});

const day = (offset: number) => new Date(Date.parse(TODAY) + offset * 86_400_000).toISOString().slice(0, 10);
const EVENT = {
  slug: TOWN.slug, tier: "standard", title: "Harvest Fair at Julia Davis Park", description: "Pumpkins, cider and a brass band on the lawn.",
  url: "https://harvestfair.example/2026", startsAt: day(6), buyerEmail: "buyer@example.com",
};
const BUSINESS = {
  slug: TOWN.slug, tier: "standard", title: "Rosemary Bakery", description: "Sourdough, croissants and coffee from 7 am.",
  url: "https://rosemary-bakery.example/", address: "112 N 8th St", category: "Bakery", buyerEmail: "owner@example.com",
};
const OUTCOMES = ["checkoutUrl", "rejected", "held", "queued"];

/** §4: a listing checkout is 200 with exactly one of the four outcomes; `rejected` carries a reason and no link. */
async function outcomeOf(res: Response): Promise<[string, Record<string, any>]> {
  const body = await jsonOf(res);
  const present = OUTCOMES.filter((k) => body[k] !== undefined);
  expect(present).toHaveLength(1);
  if (present[0] === "rejected") expect(JSON.stringify(body.rejected)).toMatch(/reason/);
  return [present[0]!, body];
}

describe("§4 Writes: POST /api/subscribe", () => {
  it("§4 Writes: POST /api/subscribe with the SubscribeRequest fields answers SubscribeResponse, stores the subscriber and sends the welcome email", async () => {
    const body = {
      email: "new-reader@example.org", city: "Nampa", state: "Idaho", slug: "nampa-idaho", honeypot: "", referrer: "https://example.org/",
      utm_source: "spec", utm_medium: null, utm_campaign: null, landing_path: "/nampa-idaho",
    };
    const answer = await jsonOf(await post("/api/subscribe", body));
    expectFields(answer, { success: "boolean", message: "string?" }, "SubscribeResponse");
    expect(answer.success).toBe(true);
    expect((await jsonOf(await spec.server.get("/api/city/nampa-idaho"))).subscriberCount).toBe(1);
    await sendPendingMail(spec.server.ctx);
    expect(spec.sink.messages.filter((m) => m.to.includes(body.email))).toHaveLength(1);
  });

  it("§4 Writes: POST /api/subscribe answers 400 validation_error (with issues) and invalid_json", async () => {
    const p = await expectProblem(await post("/api/subscribe", { city: TOWN.city, state: TOWN.state, slug: TOWN.slug }), 400, "validation_error", "/api/subscribe");
    expect(p.issues.map((i: any) => i.path)).toContain("email");
    await expectProblem(await post("/api/subscribe", "{"), 400, "invalid_json", "/api/subscribe");
  });

  it("§8: a body over the limit is 413 payload_too_large with the limit in detail", async () => {
    const p = await expectProblem(await post("/api/subscribe", { email: "big@example.org", ...TOWN, referrer: "x".repeat(2 * 1024 * 1024) }), 413, "payload_too_large", "/api/subscribe");
    expect(p.detail).toMatch(/\d+ bytes/);
  });
});

describe("§4 Writes: the listing checkouts", () => {
  it("§4 Writes: POST /api/listing-checkout answers 200 with exactly one of checkoutUrl, rejected, held, queued", async () => {
    const seen = new Map<string, Record<string, any>>();
    for (const change of [{}, { tier: "free", title: "Free swap meet" }, { startsAt: day(-21) }, { title: "Detox yoga retreat" }]) {
      const [outcome, body] = await outcomeOf(await post("/api/listing-checkout", { ...EVENT, ...change }));
      seen.set(outcome, body);
    }
    expect([...seen.keys()].sort()).toEqual([...OUTCOMES].sort());
    expect(() => new URL(seen.get("checkoutUrl")!.checkoutUrl)).not.toThrow();
    expect(seen.get("rejected")!.checkoutUrl).toBeUndefined();
    const p = await expectProblem(await post("/api/listing-checkout", { ...EVENT, url: undefined }), 400, "validation_error", "/api/listing-checkout");
    expect(p.issues.map((i: any) => i.path)).toContain("url");
  });

  it("§4 Writes: POST /api/business-checkout has the same contract", async () => {
    const [paid] = await outcomeOf(await post("/api/business-checkout", BUSINESS));
    expect(paid).toBe("checkoutUrl");
    const [free] = await outcomeOf(await post("/api/business-checkout", { ...BUSINESS, tier: "free", title: "Corner Books" }));
    expect(free).toBe("queued");
    await expectProblem(await post("/api/business-checkout", { ...BUSINESS, tier: "platinum" }), 400, "validation_error", "/api/business-checkout");
  });

  it("§4 Reads and §6: GET /api/listing-order?id= reports status and published, which turns true once the listing is paid", async () => {
    const [, body] = await outcomeOf(await post("/api/listing-checkout", { ...EVENT, title: "Winter Market" }));
    expect(body.orderId).toMatch(/^lo_[0-9a-f-]{36}$/);
    const before = await jsonOf(await spec.server.get(`/api/listing-order?id=${body.orderId}`));
    expectFields(before, { status: "string", published: "boolean" }, "listing order");
    expect(before.published).toBe(false);
    await payOnHostedPage(body.checkoutUrl, "$10.00");
    expect((await jsonOf(await spec.server.get(`/api/listing-order?id=${body.orderId}`))).published).toBe(true);
  });
});

describe("§4 Writes: POST /api/operator-actions (guest checkout)", () => {
  it("§4 Writes: POST /api/operator-actions with action, city, state alone answers a payment link", async () => {
    const res = await post("/api/operator-actions", { action: "guest-checkout", city: "Ely", state: "Nevada" });
    const body = await jsonOf(res);
    expect(() => new URL(body.checkoutUrl)).not.toThrow();
    expect((await jsonOf(await spec.server.get("/api/territories?city=Ely&state=Nevada"))).quote.available).toBe(false);
  });

  it("§3 and §4: the email entered at checkout becomes the operator account: the lease activates on payment and its operator signs in to the desk", async () => {
    const lease = await jsonOf(await post("/api/operator-actions", { action: "guest-checkout", city: "Caldwell", state: "Idaho" }));
    // The hosted page asks for the email (none was given) and the payment callback takes it from there.
    const page = await (await fetch(lease.checkoutUrl)).text();
    expect(page).toMatch(/name="email" type="email" required value(?:="")?[ >]/);
    const done = await payOnHostedPage(lease.checkoutUrl, "$10.00 a month", "caldwell-operator@example.com");
    expect(await done.text()).toContain("active");
    expect((await jsonOf(await spec.server.get("/api/territories"))).claimed).toContainEqual({ slug: "caldwell-idaho", city: "Caldwell", state: "Idaho" });
    const jar = await signIn(spec.server, spec.sink, "caldwell-operator@example.com");
    const desk = await getWith(jar, `${spec.server.url}/operator/towns/caldwell-idaho`);
    expect(desk.status).toBe(200);
    expect(await desk.text()).toContain("Caldwell, Idaho");
  });

  it("§4 Writes: POST /api/operator-actions answers 400 validation_error for a body the spec does not document", async () => {
    for (const [body, path] of [[{ action: "guest-checkout", city: "Ely" }, "state"], [{ action: "buy-everything", city: "Ely", state: "Nevada" }, "action"]] as const) {
      const p = await expectProblem(await post("/api/operator-actions", body), 400, "validation_error", "/api/operator-actions");
      expect(p.issues.map((i: any) => i.path)).toContain(path);
    }
  });
});
