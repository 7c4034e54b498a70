import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { createLogger } from "../../src/lib/log.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { replicationState } from "../../src/services/platform/replication.ts";
import { openDatabase } from "../../src/store/db.ts";
import { EVENT, stripeEvent } from "../helpers/commerce.ts";
import { alive, descendants, freePort, killHard, quietEnv, runRestore, startLikeNpm, type SpawnedServer } from "../helpers/replica-server.ts";
import { freshDataDir } from "../helpers/server.ts";
import { StripeStandIn } from "../helpers/stripe-stand-in.ts";

// Litestream replication as `npm start` runs it (package.json's prestart and start, Litestream's real
// binary, a file:// replica): a machine lost with kill -9 and its DATA_DIR deleted comes back from the
// replica with every subscription answered 2 s or more before; a payment Stripe reported after the
// last replicated change is there again; a point-in-time restore leaves out what came later; an
// unwritable replica shows as failing.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const scratch: string[] = [];
const tmpDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

async function subscribe(server: SpawnedServer, email: string): Promise<number> {
  const res = await fetch(`${server.url}/api/subscribe`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, city: "Boise", state: "Idaho", slug: "boise-idaho" }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return Date.now();
}

/** The subscribers' addresses in a database file, read as a person with sqlite3 would. */
function emailsIn(dataDir: string): string[] {
  const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT email FROM subscribers ORDER BY email").pluck().all() as string[];
  } finally {
    db.close();
  }
}

async function stopGracefully(server: SpawnedServer): Promise<number | null> {
  server.child.kill("SIGTERM");
  return server.exited;
}

describe("replication with Litestream", () => {
  let stripe: StripeStandIn;
  beforeAll(async () => {
    stripe = await new StripeStandIn().start();
  });
  afterAll(async () => {
    await stripe?.stop();
  });

  it("kill -9 and DATA_DIR deleted: npm start restores every subscription answered 2 s before, and the payment Stripe reported since", async () => {
    const dataDir = freshDataDir("citydaily-repl-");
    scratch.push(dataDir);
    const replica = path.join(tmpDir("citydaily-replica-"), "replica");
    const env = quietEnv(await freePort(), {
      DATA_DIR: dataDir, REPLICA_URL: `file://${replica}`,
      STRIPE_SECRET_KEY: "sk_test_standin", STRIPE_WEBHOOK_SECRET: "whsec_test_standin", STRIPE_API_URL: stripe.url,
    });
    const first = await startLikeNpm(env);
    try {
      const early: string[] = [];
      for (let i = 0; i < 12; i++) {
        early.push(`early${i}@example.org`);
        await subscribe(first, early[i]);
      }
      // Boise has a newsletter now: a business buys a listing (the order waits for its payment).
      const startsAt = new Date(Date.now() + 3 * 86400_000).toISOString().slice(0, 10);
      const checkout = await (await fetch(`${first.url}/api/listing-checkout`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ...EVENT, startsAt }),
      })).json();
      expect(String(checkout.checkoutUrl), JSON.stringify(checkout)).toMatch(/^https:\/\/checkout\.stripe\.com\//);
      const lastEarly = Date.now();
      await sleep(Math.max(0, lastEarly + 2200 - Date.now()));
      // The buyer pays; Stripe records the event, but its webhook goes to the machine about to be lost.
      const session = stripe.sessions().at(-1)!;
      stripe.report(stripeEvent("checkout.session.completed", {
        ...session, status: "complete", payment_status: "paid", payment_intent: "pi_lostsecond", customer_details: { email: EVENT.buyerEmail },
      }));
      for (let i = 0; i < 3; i++) await subscribe(first, `late${i}@example.org`);
      await killHard(first);
      fs.rmSync(dataDir, { recursive: true, force: true });

      const second = await startLikeNpm(env);
      try {
        expect(second.output()).toMatch(/restored .*citydaily\.db from file:\/\//);
        const emails = emailsIn(dataDir);
        for (const email of early) expect(emails).toContain(email);
        // The restored order is paid again from Stripe's events, and published as if the webhook had come.
        let order: { status?: string } = {};
        for (let i = 0; i < 100 && order.status !== "published"; i++) {
          order = await (await fetch(`${second.url}/api/listing-order?id=${checkout.orderId}`)).json();
          if (order.status !== "published") await sleep(100);
        }
        expect(order.status).toBe("published");
        expect(stripe.requests.some((r) => r.method === "GET" && r.path === "/v1/events" && r.query.has("created[gte]"))).toBe(true);
        expect(fs.existsSync(path.join(dataDir, "restored-from-replica.json"))).toBe(false);
      } finally {
        expect(await stopGracefully(second)).toBe(0);
      }
    } finally {
      if (first.child.exitCode === null) await killHard(first);
    }
  }, 180_000);

  it("a point-in-time restore leaves out what came after the time given; the restore refuses while the server runs; the WAL stays bounded", async () => {
    const dataDir = freshDataDir("citydaily-repl-");
    scratch.push(dataDir);
    const replica = path.join(tmpDir("citydaily-replica-"), "replica");
    const env = quietEnv(await freePort(), { DATA_DIR: dataDir, REPLICA_URL: `file://${replica}` });
    const server = await startLikeNpm(env);
    let at: Date;
    try {
      await subscribe(server, "before@example.org");
      await sleep(2500);
      at = new Date();
      await sleep(1500);
      await subscribe(server, "after@example.org");

      // Bulk writes (2 MB a transaction, as a morning stores its editions) with the app's autocheckpoint off:
      // Litestream's checkpoints keep the WAL bounded, and no writer meets SQLITE_BUSY.
      const db = openDatabase(path.join(dataDir, "citydaily.db"), { replicated: true });
      expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
      db.exec("CREATE TABLE bulk_test (b BLOB)");
      const insert = db.prepare("INSERT INTO bulk_test VALUES (zeroblob(4096))");
      const chunk = db.transaction(() => { for (let i = 0; i < 500; i++) insert.run(); });
      const pageSize = db.pragma("page_size", { simple: true }) as number;
      const pagesBefore = db.pragma("page_count", { simple: true }) as number;
      let largestWal = 0;
      for (let i = 0; i < 30; i++) {
        chunk();
        largestWal = Math.max(largestWal, fs.statSync(path.join(dataDir, "citydaily.db-wal")).size);
        await sleep(300);
      }
      const written = ((db.pragma("page_count", { simple: true }) as number) - pagesBefore) * pageSize;
      db.close();
      // About 70 MB went through the WAL in 10 s; it is reused once Litestream has copied and
      // checkpointed it (each second), so it holds a few seconds of writes at most, not all of them.
      expect(written).toBeGreaterThan(60e6);
      expect(largestWal).toBeLessThan(written / 2);
      await sleep(2500);

      const refused = runRestore(env, ["--replica", "--at", at.toISOString()]);
      expect(refused.status).toBe(1);
      expect(refused.output).toContain("in use by another process");
    } finally {
      expect(await stopGracefully(server)).toBe(0);
    }
    const restored = runRestore(env, ["--replica", "--at", at.toISOString()]);
    expect(restored.status, restored.output).toBe(0);
    expect(emailsIn(dataDir)).toContain("before@example.org");
    expect(emailsIn(dataDir)).not.toContain("after@example.org");
    expect(fs.readdirSync(dataDir).some((n) => n.startsWith("citydaily.db.before-restore-"))).toBe(true);
    const latest = runRestore(env, ["--replica"]);
    expect(latest.status, latest.output).toBe(0);
    expect(emailsIn(dataDir)).toEqual(expect.arrayContaining(["before@example.org", "after@example.org"]));
  }, 180_000);

  it("an unwritable replica makes replication failing after the window, and npm start's shutdown still ends", async () => {
    const dataDir = freshDataDir("citydaily-repl-");
    scratch.push(dataDir);
    const replica = path.join(tmpDir("citydaily-replica-"), "replica");
    const env = quietEnv(await freePort(), { DATA_DIR: dataDir, REPLICA_URL: `file://${replica}`, REPLICA_FAIL_AFTER_SECONDS: "3" });
    const server = await startLikeNpm(env);
    // What the server's readiness and metrics see, looked at from here: the same files, the same function.
    const db = new Database(path.join(dataDir, "citydaily.db"), { readonly: true });
    const ctx = { config: loadConfig(env), db, log: createLogger("silent") } as unknown as AppContext;
    try {
      await subscribe(server, "one@example.org");
      await sleep(2000);
      const healthy = replicationState(ctx, new Date());
      expect(healthy).toMatchObject({ configured: true, replica: `file://${replica}`, failing: false });
      expect(healthy.secondsSinceReplicated).toBeLessThan(3);

      // The replica's folder is replaced by a file: Litestream can write nothing more and says nothing.
      fs.rmSync(replica, { recursive: true, force: true });
      fs.writeFileSync(replica, "not a folder");
      const broken = Date.now();
      await subscribe(server, "two@example.org");
      let state = replicationState(ctx, new Date());
      while (!state.failing && Date.now() - broken < 15_000) {
        await sleep(500);
        state = replicationState(ctx, new Date());
      }
      expect(state.failing).toBe(true);
      expect(Date.now() - broken).toBeGreaterThanOrEqual(3000);
      expect(state.secondsSinceReplicated).toBeGreaterThanOrEqual(3);
    } finally {
      db.close();
      const pids = descendants(server.child.pid!);
      const stopping = Date.now();
      const code = await stopGracefully(server);
      // SHUTDOWN_TIMEOUT_MS (1 s) and 5 s of grace, then SIGKILL: the start script does not hang.
      expect(Date.now() - stopping).toBeLessThan(15_000);
      expect(code).not.toBe(0);
      await sleep(200);
      expect(pids.filter(alive)).toEqual([]);
    }
  }, 120_000);
});
