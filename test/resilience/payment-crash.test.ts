import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedCallback, stripeEvent, upcomingEvent } from "../helpers/commerce.ts";
import { freshDataDir, startTestServer } from "../helpers/server.ts";

// The server is killed (SIGKILL) while payment callbacks are being applied; the provider then
// retries every callback it has no 200 for (here: all of them). Each order must end published
// exactly once, with one recorded event and one buyer email each, whatever was in flight.

const ROOT = path.resolve(import.meta.dirname, "../..");
const ORDERS = 30;
let dataDir: string;
let callbacks: Array<{ orderId: string; payload: string }> = [];
let secret = "";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function serverProcess(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, "api/server.ts")], {
    cwd: ROOT, stdio: "ignore",
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, LOG_LEVEL: "silent", MORNING_SCHEDULE: "off", MAIL_SENDER: "off" },
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error("server exited");
    if (await fetch(`http://127.0.0.1:${port}/api/pricing`).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const send = (port: number, c: { payload: string }) =>
  fetch(`http://127.0.0.1:${port}/webhooks/payments`, {
    method: "POST", headers: signedCallback(c.payload, secret, Math.floor(Date.now() / 1000)), body: c.payload,
  }).then((r) => r.status, () => "cut" as const);

beforeAll(async () => {
  dataDir = freshDataDir();
  // Orders waiting for payment, made through the API; their callbacks signed as the provider would.
  const server = await startTestServer({ DATA_DIR: dataDir, MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000" });
  await server.post("/api/subscribe", { email: "reader@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
  secret = server.ctx.secrets.stored("local_payments_webhook_secret");
  for (let i = 0; i < ORDERS; i++) {
    const { orderId } = (await (await server.post("/api/listing-checkout", { ...upcomingEvent(server), title: `Crash test concert ${i}` })).json()) as { orderId: string };
    const session = server.ctx.db.prepare("SELECT provider_session_id FROM listing_orders WHERE id = ?").pluck().get(orderId) as string;
    const event = stripeEvent("checkout.session.completed", {
      id: session, object: "checkout.session", mode: "payment", payment_status: "paid", amount_total: 1000,
      metadata: { order_id: orderId }, client_reference_id: orderId, payment_intent: `pi_crash_${i}`, customer_details: { email: "buyer@example.com" },
    });
    callbacks.push({ orderId, payload: JSON.stringify(event) });
  }
  // Keep the data directory: the server processes below use it.
  await server.close();
}, 120_000);
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("kill -9 during payment callbacks", () => {
  it("every order ends published once, with one recorded event and one buyer email, after the provider retries", async () => {
    const port = await freePort();
    const first = await serverProcess(port);
    const exited = new Promise((r) => first.once("exit", r));
    let answered = 0;
    // Five at a time, as a provider delivers: writes that arrive together are committed together
    // (src/store/group-commit.ts), so thirty at once would all be answered before any kill.
    const firstRound: Array<number | "cut"> = [];
    let next = 0;
    const deliverer = async () => {
      while (next < callbacks.length) {
        const i = next++;
        firstRound[i] = await send(port, callbacks[i]).then((s) => { if (s === 200 && ++answered === 5) first.kill("SIGKILL"); return s; });
      }
    };
    await Promise.all(Array.from({ length: 5 }, deliverer));
    await exited;
    const acknowledged = firstRound.filter((s) => s === 200).length;
    expect(acknowledged).toBeGreaterThanOrEqual(5);
    expect(acknowledged).toBeLessThan(ORDERS); // the kill came with callbacks still in flight
    const peek = new Database(path.join(dataDir, "citydaily.db"), { readonly: true });
    const applied = peek.prepare("SELECT count(*) FROM payment_events").pluck().get() as number;
    peek.close();
    expect(applied).toBeGreaterThanOrEqual(acknowledged);

    const second = await serverProcess(port);
    try {
      // The provider retries everything; already applied events answer 200 and change nothing.
      const retries = await Promise.all(callbacks.map((c) => send(port, c)));
      expect(retries.every((s) => s === 200)).toBe(true);
      for (const c of callbacks) {
        const order = (await (await fetch(`http://127.0.0.1:${port}/api/listing-order?id=${c.orderId}`)).json()) as { status: string; published: boolean };
        expect(order, c.orderId).toMatchObject({ status: "published", published: true });
      }
    } finally {
      second.kill("SIGTERM");
      await new Promise((r) => second.once("exit", r));
    }
    const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      expect(db.prepare("SELECT count(*) FROM payment_events").pluck().get()).toBe(ORDERS);
      const mails = db.prepare(`SELECT dedupe_key FROM outbox WHERE kind = 'transactional' AND dedupe_key LIKE '%:listing_published'`).pluck().all() as string[];
      expect(mails.length).toBe(ORDERS);
      expect(new Set(mails).size).toBe(ORDERS);
    } finally {
      db.close();
    }
    console.log(`payment callbacks: ${acknowledged} of ${ORDERS} acknowledged and ${applied} applied before kill -9; all ${ORDERS} published once after the retries`);
  });
});

// The built-in checkout: a burst of people pressing Pay while the server is killed (SIGKILL) at a
// random instant. A buyer whose Pay got no answer presses it again on the restarted server (any
// buyer would). Every order must end published exactly once: the session's "paid" follows from the
// recorded payment event, and a repeated Pay re-delivers the same event, applied once.
describe("kill -9 during a burst of payments on the built-in checkout", () => {
  const ROUNDS = 3;
  const PER_ROUND = 20;
  let localDir: string;
  const sessions: Array<{ orderId: string; sessionId: string }> = [];

  beforeAll(async () => {
    localDir = freshDataDir();
    const server = await startTestServer({ DATA_DIR: localDir, MAIL_SENDER: "off", SUBSCRIBE_RATE_LIMIT: "1000" });
    await server.post("/api/subscribe", { email: "reader@example.org", city: "Boise", state: "Idaho", slug: "boise-idaho" });
    for (let i = 0; i < ROUNDS * PER_ROUND; i++) {
      const { orderId } = (await (await server.post("/api/listing-checkout", { ...upcomingEvent(server), title: `Local crash concert ${i}` })).json()) as { orderId: string };
      const sessionId = server.ctx.db.prepare("SELECT provider_session_id FROM listing_orders WHERE id = ?").pluck().get(orderId) as string;
      sessions.push({ orderId, sessionId });
    }
    await server.close();
  }, 120_000);
  afterAll(() => {
    fs.rmSync(localDir, { recursive: true, force: true });
  });

  const pay = (port: number, sessionId: string) =>
    fetch(`http://127.0.0.1:${port}/checkout/${sessionId}/pay`, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "email=buyer%40example.com", redirect: "manual",
    }).then((r) => r.status, () => "cut" as const);

  async function localServer(port: number): Promise<ChildProcess> {
    const saved = dataDir;
    dataDir = localDir;
    try {
      return await serverProcess(port);
    } finally {
      dataDir = saved;
    }
  }

  it("every paid order is published exactly once, whatever instant the kill lands", async () => {
    const port = await freePort();
    const report: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batch = sessions.slice(round * PER_ROUND, (round + 1) * PER_ROUND);
      const server = await localServer(port);
      const exited = new Promise((r) => server.once("exit", r));
      // The kill lands after 1 to 4 answers plus 0 to 15 ms: somewhere inside the burst.
      const killAfter = 1 + Math.floor(Math.random() * 4);
      const extraMs = Math.floor(Math.random() * 16);
      let answered = 0;
      const first: Array<number | "cut"> = [];
      let next = 0;
      const buyer = async () => {
        while (next < batch.length) {
          const i = next++;
          first[i] = await pay(port, batch[i].sessionId);
          if (first[i] === 303 && ++answered === killAfter) setTimeout(() => server.kill("SIGKILL"), extraMs);
          expect(first[i] === 303 || first[i] === "cut", String(first[i])).toBe(true);
        }
      };
      try {
        await Promise.all(Array.from({ length: 5 }, buyer));
      } finally {
        server.kill("SIGKILL"); // no-op when the kill already landed; never left running on a failure
      }
      await exited;
      const cut = first.filter((s) => s === "cut").length;

      // Restarted: each buyer who got no answer presses Pay again.
      const second = await localServer(port);
      try {
        for (let i = 0; i < batch.length; i++) {
          if (first[i] !== 303) expect(await pay(port, batch[i].sessionId), batch[i].orderId).toBe(303);
        }
        // And a buyer who did get an answer and presses Pay once more changes nothing.
        const again = batch.findIndex((_, i) => first[i] === 303);
        if (again >= 0) expect(await pay(port, batch[again].sessionId)).toBe(303);
        for (const { orderId, sessionId } of batch) {
          const order = (await (await fetch(`http://127.0.0.1:${port}/api/listing-order?id=${orderId}`)).json()) as { status: string };
          expect(order.status, orderId).toBe("published");
          // The checkout page says paid only now that the payment is recorded.
          expect(await (await fetch(`http://127.0.0.1:${port}/checkout/${sessionId}`)).text()).toContain("Already paid");
        }
      } finally {
        second.kill("SIGTERM");
        await new Promise((r) => second.once("exit", r));
      }
      report.push(`round ${round + 1}: kill after ${killAfter} answers + ${extraMs} ms, ${cut} cut`);
    }
    const db = new Database(path.join(localDir, "citydaily.db"), { readonly: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const total = ROUNDS * PER_ROUND;
      expect(db.prepare("SELECT count(*) FROM payment_events").pluck().get()).toBe(total);
      expect(db.prepare("SELECT count(*) FROM listing_orders WHERE status = 'published'").pluck().get()).toBe(total);
      const mails = db.prepare(`SELECT dedupe_key FROM outbox WHERE kind = 'transactional' AND dedupe_key LIKE '%:listing_published'`).pluck().all() as string[];
      expect(new Set(mails).size).toBe(total);
      expect(mails.length).toBe(total);
    } finally {
      db.close();
    }
    console.log(`local checkout under kill -9: ${report.join("; ")}; all ${ROUNDS * PER_ROUND} published once`);
  }, 120_000);
});
