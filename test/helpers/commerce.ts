import Stripe from "stripe";
import { expect } from "vitest";
import type { TestServer } from "./server.ts";

/** Signs a callback body with the stripe library's own test-header helper, as Stripe would. */
export function signedCallback(payload: string, secret: string, timestamp: number): Record<string, string> {
  return { "Content-Type": "application/json", "Stripe-Signature": Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }) };
}

/** The local provider's callback secret (kept in the database). */
export const localSecret = (server: TestServer) => server.ctx.secrets.stored("local_payments_webhook_secret");

export const nowSeconds = (server: TestServer) => Math.floor(server.ctx.config.now().getTime() / 1000);

/** A Stripe-shaped event, as the providers send it. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_test_${crypto.randomUUID().replaceAll("-", "")}`) {
  return { id, object: "event", type, created: 0, livemode: false, data: { object } };
}

export async function postCallback(server: TestServer, event: unknown, opts: { secret?: string; timestamp?: number; headers?: Record<string, string> } = {}) {
  const payload = typeof event === "string" ? event : JSON.stringify(event);
  const headers = opts.headers ?? signedCallback(payload, opts.secret ?? localSecret(server), opts.timestamp ?? nowSeconds(server));
  return fetch(`${server.url}/webhooks/payments`, { method: "POST", headers, body: payload });
}

/**
 * What a person does on the local hosted checkout: opens the page (it must show the price), then
 * submits its Pay form with the email field; follows the redirect to the success page.
 */
export async function payOnHostedPage(checkoutUrl: string, expectPrice: string, email?: string): Promise<Response> {
  const page = await fetch(checkoutUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain(expectPrice);
  const action = /<form method="post" action="([^"]+\/pay)">/.exec(html)?.[1];
  expect(action).toBeDefined();
  const prefilled = /name="email" type="email" required value="([^"]*)"/.exec(html)?.[1] ?? "";
  const res = await fetch(new URL(action!, checkoutUrl), {
    method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: email ?? prefilled.replace(/&#64;/g, "@") }).toString(), redirect: "manual",
  });
  expect(res.status).toBe(303);
  return fetch(new URL(res.headers.get("location")!, checkoutUrl));
}

/** Leases a town for `email` as a buyer would: the lease checkout, then Pay on the local hosted page. */
export async function leaseTown(server: TestServer, email: string, city = "Boise", state = "Idaho"): Promise<void> {
  const lease = await (await server.post("/api/operator-actions", { action: "guest-checkout", city, state, email })).json();
  await payOnHostedPage(lease.checkoutUrl, "$10.00 a month");
}

export async function problemOf(res: Response) {
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await res.json()) as { code: string; status: number; detail: string; issues?: Array<{ path: string; message: string }> };
}

/** The NOW most commerce tests pin their server to: EVENT's fixed day is six days after it. */
export const PINNED_NOW = "2026-11-22T12:00:00.000Z";

/**
 * An event listing on a fixed day, for a server pinned to PINNED_NOW (or a NOW before 2026-11-28).
 * A server on the real clock would screen it out as past (it did from 2026-11-28 on): give it
 * `upcomingEvent(server)` instead.
 */
export const EVENT = {
  slug: "boise-idaho", tier: "standard", title: "Harvest Fair at Julia Davis Park", description: "Pumpkins, cider and a brass band on the lawn.",
  url: "https://harvestfair.example/2026", startsAt: "2026-11-28", venue: "Julia Davis Park", buyerEmail: "buyer@example.com",
};

/** The day (YYYY-MM-DD) `days` after `now`: far enough ahead that no town's time zone makes it yesterday. */
export const dayAfter = (now: Date, days: number) => new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);

/** EVENT six days after the server's own clock, for tests whose server runs on the real clock. */
export const upcomingEvent = (server: TestServer) => ({ ...EVENT, startsAt: dayAfter(server.ctx.config.now(), 6) });

export const BUSINESS = {
  slug: "boise-idaho", tier: "standard", title: "Rosemary Bakery", description: "Sourdough, croissants and coffee from 7 am.",
  url: "https://rosemary-bakery.example/", address: "112 N 8th St", category: "Bakery", buyerEmail: "owner@example.com",
};
