import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// Writes under load, as permanent tests: concurrent subscribes lose nothing and duplicate nothing.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "100000" });
});
afterAll(async () => {
  await server?.stop();
});

const subscribe = (email: string, slug = "boise-idaho") =>
  server.post("/api/subscribe", { email, city: slug === "boise-idaho" ? "Boise" : "Tucson", state: slug === "boise-idaho" ? "Idaho" : "Arizona", slug });

const count = (sql: string, ...args: unknown[]) => server.ctx.db.prepare(sql).pluck().get(...args) as number;

describe("concurrent subscribes", () => {
  it("1,000 distinct addresses at once: 1,000 subscriptions and 1,000 welcome emails, none lost, none doubled", async () => {
    const emails = Array.from({ length: 1000 }, (_, i) => `load${i}@example.org`);
    const answers = await Promise.all(emails.map((e) => subscribe(e).then(async (r) => [r.status, (await r.json()).success])));
    expect(answers.filter(([status, ok]) => status === 200 && ok === true)).toHaveLength(1000);
    expect(count("SELECT count(*) FROM subscribers WHERE email LIKE 'load%'")).toBe(1000);
    expect(count("SELECT count(DISTINCT email) FROM subscribers WHERE email LIKE 'load%'")).toBe(1000);
    expect(count(`SELECT count(*) FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE o.kind = 'welcome' AND s.email LIKE 'load%'`)).toBe(1000);
    expect((await (await server.get("/api/city/boise-idaho")).json()).subscriberCount).toBe(1000);
  }, 90_000);

  it("one address 50 times at once: one subscription, one welcome email", async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => subscribe("same@example.org", "tucson-arizona").then((r) => r.status)));
    expect(answers.every((s) => s === 200)).toBe(true);
    expect(count("SELECT count(*) FROM subscribers WHERE email = 'same@example.org'")).toBe(1);
    expect(count(`SELECT count(*) FROM outbox o JOIN subscribers s ON s.id = o.subscriber_id WHERE s.email = 'same@example.org'`)).toBe(1);
    expect(server.ctx.db.pragma("integrity_check", { simple: true })).toBe("ok");
  });
});
