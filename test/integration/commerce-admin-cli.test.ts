import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { EVENT } from "../helpers/commerce.ts";

// `npm run admin -- orders ...` drives the same operations as the admin endpoints, on the same database.

const NOW = "2026-11-22T12:00:00.000Z";
const ROOT = path.resolve(import.meta.dirname, "../..");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ MAIL_SENDER: "off", NOW, SUBSCRIBE_RATE_LIMIT: "1000" });
  addSubscriber(server.ctx.db, "boise-idaho", "reader@example.org");
});
afterAll(async () => {
  await server?.stop();
});

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["scripts/admin.ts", ...args], {
      cwd: ROOT, env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: "silent", NOW, BASE_URL: server.url },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const status = async (id: string) => ((await (await server.get(`/api/listing-order?id=${id}`)).json()) as { status: string }).status;

describe("npm run admin -- orders", () => {
  it("lists, shows, approves, rejects with a reason and releases", async () => {
    const free = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Choir concert" })).json();
    const other = await (await server.post("/api/listing-checkout", { ...EVENT, tier: "free", title: "Bake sale" })).json();
    const held = await (await server.post("/api/listing-checkout", { ...EVENT, title: "Miracle detox talk" })).json();

    const list = await admin("orders", "list", "--status", "awaiting_review");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(free.orderId);
    expect(list.stdout).toContain('"Choir concert"');
    expect(list.stdout).not.toContain(held.orderId);

    const show = await admin("orders", "show", held.orderId);
    expect(JSON.parse(show.stdout)).toMatchObject({ status: "held", rule: "health-claims", buyerEmail: EVENT.buyerEmail });

    expect((await admin("orders", "approve", free.orderId)).code).toBe(0);
    expect(await status(free.orderId)).toBe("published");

    const reject = await admin("orders", "reject", other.orderId, "--reason", "Not a public event");
    expect(JSON.parse(reject.stdout)).toMatchObject({ status: "rejected", reason: "Not a public event" });

    const release = await admin("orders", "release", held.orderId);
    const released = JSON.parse(release.stdout);
    expect(released.status).toBe("pending_payment");
    expect(released.checkoutUrl).toMatch(`${server.url}/checkout/cs_local_`);
  });

  it("explains bad input and wrong states, exiting non-zero", async () => {
    const bad = await admin("orders", "show", "lo_nope");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^validation_error: id:/);
    const noReason = await admin("orders", "reject", `lo_${crypto.randomUUID()}`);
    expect(noReason.stderr).toMatch(/validation_error: reason/);
    const missing = await admin("orders", "approve", `lo_${crypto.randomUUID()}`);
    expect(missing.stderr).toMatch(/^not_found/);
  });
});
