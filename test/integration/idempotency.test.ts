import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationsById } from "../../src/contract/operations/index.ts";
import { AppError } from "../../src/core/errors.ts";
import { requestHash, runOperationOnce } from "../../src/services/operations/run-once.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { BUSINESS, EVENT, problemOf } from "../helpers/commerce.ts";
import { StripeStandIn } from "../helpers/stripe-stand-in.ts";

// Creating POSTs made safe to retry with `Idempotency-Key` (as Stripe does it): the same key and
// body answer the first answer (the same order, the same payment link), a different body with the
// key is a clear problem, and two requests at once with one key make one order. Payments go through
// the Stripe stand-in, so a checkout really waits on the network while a second request arrives.

const NOW = "2026-11-22T12:00:00.000Z";
let stripe: StripeStandIn;
let server: TestServer;

beforeAll(async () => {
  stripe = await new StripeStandIn().start();
  server = await startTestServer({
    MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000",
    STRIPE_SECRET_KEY: "sk_test_standin", STRIPE_WEBHOOK_SECRET: "whsec_test_standin", STRIPE_API_URL: stripe.url,
  });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
});
afterAll(async () => {
  await server?.stop();
  await stripe?.stop();
});

const count = (table: string) => server.ctx.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
const post = (path: string, body: unknown, key?: string) => server.post(path, body, key === undefined ? undefined : { headers: { "Idempotency-Key": key } });

describe("Idempotency-Key on the listing checkouts", () => {
  it("a retry with the same key and body answers the same order and payment link, marked replayed; nothing new is created", async () => {
    const key = crypto.randomUUID();
    const orders = count("listing_orders");
    const sessions = stripe.sessions().length;
    const first = await post("/api/listing-checkout", EVENT, key);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const a = await first.json();
    expect(a.checkoutUrl).toMatch(/^https?:\/\//);

    // The same body with its fields in another order is the same request; so is /api/v1.
    const reordered = Object.fromEntries(Object.entries(EVENT).reverse());
    for (const path of ["/api/listing-checkout", "/api/v1/listing-checkout"]) {
      const again = await post(path, reordered, key);
      expect(again.status).toBe(200);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("access-control-expose-headers")).toMatch(/Idempotent-Replayed/);
      expect(await again.json()).toEqual(a);
    }
    expect(count("listing_orders")).toBe(orders + 1);
    expect(stripe.sessions().length).toBe(sessions + 1);

    // Without a key each call is a new order, as before.
    const other = await (await post("/api/listing-checkout", EVENT)).json();
    expect(other.orderId).not.toBe(a.orderId);
  });

  it("the same key with a different body is 422 idempotency_key_reused, and stores nothing", async () => {
    const key = crypto.randomUUID();
    await post("/api/listing-checkout", EVENT, key);
    const orders = count("listing_orders");
    const res = await post("/api/listing-checkout", { ...EVENT, title: "Another fair" }, key);
    expect(res.status).toBe(422);
    const p = await problemOf(res);
    expect(p.code).toBe("idempotency_key_reused");
    expect(p.detail).toMatch(/different request to createListingCheckout/);
    expect(p.detail).toMatch(/use a new key/);
    expect(count("listing_orders")).toBe(orders);
    // Keys belong to one operation: the same key on the business checkout is its own request.
    expect((await post("/api/business-checkout", BUSINESS, key)).status).toBe(200);
  });

  it("two requests at once with one key make one order and one payment link", async () => {
    const key = crypto.randomUUID();
    const orders = count("listing_orders");
    const sessions = stripe.sessions().length;
    const [r1, r2] = await Promise.all([post("/api/listing-checkout", EVENT, key), post("/api/listing-checkout", EVENT, key)]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    const [a, b] = [await r1.json(), await r2.json()];
    expect(b).toEqual(a);
    expect([r1.headers.get("idempotent-replayed"), r2.headers.get("idempotent-replayed")].sort()).toEqual([null, "true"]);
    expect(count("listing_orders")).toBe(orders + 1);
    expect(stripe.sessions().length).toBe(sessions + 1);
  });

  it("business checkout: a retry answers the same order and link", async () => {
    const key = crypto.randomUUID();
    const a = await (await post("/api/business-checkout", BUSINESS, key)).json();
    const again = await post("/api/business-checkout", BUSINESS, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(a);
    expect(a.checkoutUrl).toBeDefined();
  });

  it("a failed request keeps nothing: the key runs again once the request is fixed", async () => {
    const key = crypto.randomUUID();
    const refused = await problemOf(await post("/api/listing-checkout", { ...EVENT, slug: "caldwell-idaho" }, key));
    expect(refused.code).toBe("conflict");
    const res = await post("/api/listing-checkout", EVENT, key);
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a key is kept 24 hours: after that the same key is a new request", async () => {
    const key = crypto.randomUUID();
    const a = await (await post("/api/listing-checkout", EVENT, key)).json();
    expect((await (await post("/api/listing-checkout", EVENT, key)).json()).orderId).toBe(a.orderId);
    server.ctx.db.prepare("UPDATE idempotency_keys SET created_at = ? WHERE idem_key = ?").run("2026-11-21T11:59:59.000Z", key);
    const later = await post("/api/listing-checkout", EVENT, key);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect((await later.json()).orderId).not.toBe(a.orderId);
  });

  it("a malformed key is 400 validation_error naming the header; nothing is created", async () => {
    const orders = count("listing_orders");
    for (const bad of ["has space", "x".repeat(256), "naïve"]) {
      const res = await server.post("/api/listing-checkout", EVENT, { headers: { "Idempotency-Key": bad } }).catch(() => undefined);
      if (!res) continue; // fetch refuses a non-ASCII header value itself
      expect(res.status).toBe(400);
      const p = await problemOf(res);
      expect(p.code).toBe("validation_error");
      expect(p.issues?.[0]?.path).toBe("header.Idempotency-Key");
    }
    expect(count("listing_orders")).toBe(orders);
    const preflight = await fetch(`${server.url}/api/listing-checkout`, { method: "OPTIONS" });
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Idempotency-Key/);
  });
});

describe("Idempotency-Key on the lease checkout and on subscribe", () => {
  it("operator-actions: the retry gets the same reservation and link (without the key it would be 409, the town being reserved)", async () => {
    const key = crypto.randomUUID();
    const body = { action: "guest-checkout", city: "Nampa", state: "Idaho", email: "op@example.com" };
    const first = await post("/api/operator-actions", body, key);
    expect(first.status).toBe(200);
    const a = await first.json();
    const again = await post("/api/operator-actions", body, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(a);
    expect((await problemOf(await post("/api/operator-actions", body))).code).toBe("conflict");
    expect((await problemOf(await post("/api/operator-actions", { ...body, email: "other@example.com" }, key))).code).toBe("idempotency_key_reused");
  });

  it("operator-actions: two at once with one key reserve once, both get the same link", async () => {
    const key = crypto.randomUUID();
    const body = { action: "guest-checkout", city: "Meridian", state: "Idaho", email: "op@example.com" };
    const leases = count("leases");
    const [r1, r2] = await Promise.all([post("/api/operator-actions", body, key), post("/api/operator-actions", body, key)]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(await r2.json()).toEqual(await r1.json());
    expect(count("leases")).toBe(leases + 1);
  });

  it("subscribe: the retry answers the first answer, replayed; a different body with the key is refused", async () => {
    const key = crypto.randomUUID();
    const body = { email: "retry@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" };
    const first = await post("/api/subscribe", body, key);
    expect(first.status).toBe(200);
    const again = await post("/api/subscribe", body, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM subscribers WHERE email = ?").pluck().get("retry@example.org")).toBe(1);
    expect((await problemOf(await post("/api/subscribe", { ...body, email: "someone-else@example.org" }, key))).code).toBe("idempotency_key_reused");
  });
});

describe("a first request still running", () => {
  const op = operationsById.subscribe;
  const input = { email: "inflight@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" };
  const caller = { transport: "http" as const, address: "127.0.0.1", admin: false };
  const claim = (key: string, createdAt: string) => server.ctx.db.prepare("INSERT INTO idempotency_keys (scope, idem_key, request_hash, state, created_at) VALUES ('subscribe', ?, ?, 'in_progress', ?)")
    .run(key, requestHash(input), createdAt);

  it("a second request waits for it, then answers 409 idempotency_in_progress with Retry-After; nothing runs", async () => {
    const key = crypto.randomUUID();
    claim(key, NOW);
    const error = await runOperationOnce(server.ctx, op, input, caller, key, { waitMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("idempotency_in_progress");
    expect((error as AppError).headers).toEqual({ "Retry-After": "1" });
    expect(server.ctx.db.prepare("SELECT COUNT(*) FROM subscribers WHERE email = ?").pluck().get(input.email)).toBe(0);
  });

  it("a claim left by a request that died (over 5 minutes, no answer) is taken over", async () => {
    const key = crypto.randomUUID();
    claim(key, "2026-11-22T11:54:00.000Z");
    const { replayed } = await runOperationOnce(server.ctx, op, input, caller, key, { waitMs: 150 });
    expect(replayed).toBe(false);
    expect(server.ctx.db.prepare("SELECT state FROM idempotency_keys WHERE idem_key = ?").pluck().get(key)).toBe("done");
  });
});

describe("the contract", () => {
  it("OpenAPI documents the header, the replay header and the problems on each creating POST", async () => {
    const doc = await (await server.get("/openapi.json")).json();
    for (const path of ["/api/subscribe", "/api/listing-checkout", "/api/business-checkout", "/api/operator-actions"]) {
      const op = doc.paths[path].post;
      expect(op.parameters.find((p: any) => p.in === "header").name).toBe("Idempotency-Key");
      expect(op.responses["200"].headers["Idempotent-Replayed"]).toBeDefined();
      expect(JSON.stringify(op.responses["422"])).toMatch(/idempotency_key_reused/);
      expect(JSON.stringify(op.responses["409"])).toMatch(/idempotency_in_progress/);
      expect(op.description).toMatch(/Idempotency-Key/);
    }
  });
});
