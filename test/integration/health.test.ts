import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { litestreamBinary, writeLitestreamConfig } from "../../src/integrations/backup/litestream.ts";
import { databaseFile } from "../../src/store/db.ts";
import { enqueueMail } from "../../src/store/mail/outbox.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// /livez and /readyz as a load balancer sees them: application/health+json, 200 while ready, 503
// the moment a real failure happens: another process holds the database's write lock, the disk is
// below its floor, the mail sender hangs on a silent relay, the replica's folder is replaced by a file.

interface Health { status: "pass" | "warn" | "fail"; checks: Record<string, Array<{ status: string; output?: string; observedValue?: number }>> }

/** One probe as a load balancer sends it: a fresh connection each time (no keep-alive socket the server may have closed meanwhile). */
function health(server: TestServer, p: string): Promise<{ status: number; type: string | null; cache: string | null; body: Health }> {
  return new Promise((resolve, reject) => {
    http.get(server.url + p, { agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, type: res.headers["content-type"] ?? null, cache: res.headers["cache-control"] ?? null, body: JSON.parse(text) as Health }));
    }).on("error", reject);
  });
}

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("/livez and /readyz", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ MAIL_SENDER: "off" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("/livez: 200 pass while the process runs", async () => {
    const live = await health(server, "/livez");
    expect(live).toMatchObject({ status: 200, type: "application/health+json", cache: "no-store", body: { status: "pass", checks: {} } });
  });

  it("/readyz: 200 pass, each check named, a real write each time", async () => {
    const ready = await health(server, "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.type).toBe("application/health+json");
    expect(ready.cache).toBe("no-store");
    expect(ready.body.status).toBe("pass");
    expect(Object.keys(ready.body.checks).sort()).toEqual(["disk:free", "mail:sender", "replication:lag", "sqlite:writable"]);
    for (const checks of Object.values(ready.body.checks)) expect(checks[0].status).toBe("pass");
    const probe = () => server.ctx.db.prepare("SELECT value FROM meta WHERE key = 'health.probe'").pluck().get() as string;
    const first = probe();
    await new Promise((r) => setTimeout(r, 5));
    await health(server, "/readyz");
    expect(probe() > first).toBe(true);
  });

  it("503 fail while another process holds the database's write lock, pass again once it lets go", async () => {
    // Another process (a stuck writer; Litestream's forced checkpoint is one) takes the write lock and keeps it.
    const holder = spawn(process.execPath, ["-e", `
      const db = new (require("better-sqlite3"))(process.argv[1]);
      db.prepare("BEGIN IMMEDIATE").run();
      console.log("held");
      process.stdin.on("end", () => { db.prepare("ROLLBACK").run(); db.close(); process.exit(0); });
      process.stdin.resume();`, databaseFile(server.dataDir)], { cwd: PROJECT_ROOT, stdio: ["pipe", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.once("data", () => resolve());
        holder.once("exit", (code) => reject(new Error(`the lock holder exited (${code})`)));
      });
      const held = await health(server, "/readyz");
      expect(held.status).toBe(503);
      expect(held.body.status).toBe("fail");
      expect(held.body.checks["sqlite:writable"][0]).toMatchObject({ status: "fail" });
      expect(held.body.checks["sqlite:writable"][0].output).toMatch(/cannot be written: SQLITE_BUSY/);
      // Liveness does not touch the database: the process is alive, only not ready.
      expect((await health(server, "/livez")).status).toBe(200);
      const exited = new Promise((r) => holder.once("exit", r));
      holder.stdin!.end();
      await exited;
      expect((await health(server, "/readyz")).status).toBe(200);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("503 fail when the disk under DATA_DIR has less free than READYZ_MIN_FREE_BYTES", async () => {
    const floor = server.ctx.config.monitoring.minFreeBytes;
    const { bavail, bsize } = fs.statfsSync(server.dataDir);
    try {
      server.ctx.config.monitoring.minFreeBytes = bavail * bsize * 2;
      const full = await health(server, "/readyz");
      expect(full.status).toBe(503);
      expect(full.body.checks["disk:free"][0]).toMatchObject({ status: "fail" });
      expect(full.body.checks["disk:free"][0].output).toMatch(/MiB free under DATA_DIR/);
      server.ctx.config.monitoring.minFreeBytes = Math.floor((bavail * bsize) / 3);
      const near = await health(server, "/readyz");
      expect(near.status).toBe(200);
      expect(near.body).toMatchObject({ status: "warn", checks: { "disk:free": [{ status: "warn" }] } });
    } finally {
      server.ctx.config.monitoring.minFreeBytes = floor;
    }
  });

  it("lists both probes in the OpenAPI description", async () => {
    const doc = (await (await server.get("/openapi.json")).json()) as { paths: Record<string, { get?: { responses: Record<string, { content: Record<string, unknown> }> } }> };
    expect(Object.keys(doc.paths["/readyz"].get!.responses).sort()).toEqual(["200", "405", "503"]);
    expect(Object.keys(doc.paths["/livez"].get!.responses["200"].content)).toEqual(["application/health+json"]);
  });
});

describe("/readyz and a stalled mail sender", () => {
  let server: TestServer;
  let relay: net.Server;
  const sockets = new Set<net.Socket>();
  beforeAll(async () => {
    // A relay that accepts the connection and never greets: the sender waits on it.
    relay = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const port = (relay.address() as net.AddressInfo).port;
    server = await startTestServer({ SMTP_URL: `smtp://127.0.0.1:${port}?greetingTimeout=60000&connectionTimeout=60000&socketTimeout=60000`, MAIL_SEND_INTERVAL_MS: "200" });
  });
  afterAll(async () => {
    await server?.stop();
    for (const s of sockets) s.destroy();
    await new Promise((r) => relay?.close(r));
  });

  it("503 when mail due 2 hours ago sits with the sender and nothing goes out", async () => {
    expect((await health(server, "/readyz")).body.checks["mail:sender"][0].status).toBe("pass");
    const db = server.ctx.db;
    addSubscriber(db, "ely-nevada", "waiting@example.org");
    const id = db.prepare("SELECT id FROM subscribers WHERE email = 'waiting@example.org'").pluck().get() as number;
    const due = Date.now() - 2 * 3_600_000;
    enqueueMail(db, "welcome", id, null, due, new Date(due).toISOString());
    server.ctx.mail.kick();
    const status = () => db.prepare("SELECT status FROM outbox WHERE subscriber_id = ?").pluck().get(id);
    await until(async () => status(), (s) => s === "sending", 10_000);
    expect(status()).toBe("sending");
    const stalled = await health(server, "/readyz");
    expect(stalled.status).toBe(503);
    expect(stalled.body.checks["mail:sender"][0]).toMatchObject({ status: "fail" });
    expect(stalled.body.checks["mail:sender"][0].output).toMatch(/waited 120 min and nothing was sent .*stalled/);
    expect(stalled.body.checks["mail:sender"][0].observedValue).toBeGreaterThanOrEqual(7200);
  });
});

describe("/readyz and replication", () => {
  let server: TestServer;
  let litestream: ChildProcess | undefined;
  const replica = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-replica-"));
  beforeAll(async () => {
    server = await startTestServer({ MAIL_SENDER: "off", REPLICA_URL: `file://${replica}`, REPLICA_FAIL_AFTER_SECONDS: "2" });
    const config = writeLitestreamConfig(server.dataDir, databaseFile(server.dataDir), server.ctx.config.replica);
    litestream = spawn(litestreamBinary(), ["replicate", "-config", config], { stdio: "ignore" });
  });
  afterAll(async () => {
    // Litestream ignores SIGTERM once its replica cannot be written.
    litestream?.kill("SIGKILL");
    await server?.stop();
    fs.rmSync(replica, { recursive: true, force: true });
  });

  it("passes while Litestream keeps the replica, 503 once the replica's folder is a file", async () => {
    const ready = await until(() => health(server, "/readyz"), (h) => h.body.checks["replication:lag"][0].status === "pass", 20_000);
    expect(ready.status).toBe(200);
    expect(ready.body.checks["replication:lag"][0].status).toBe("pass");
    fs.rmSync(replica, { recursive: true, force: true });
    fs.writeFileSync(replica, "not a folder\n");
    // Each /readyz writes (its probe): a change the replica can no longer follow.
    const failed = await until(() => health(server, "/readyz"), (h) => h.status === 503, 30_000);
    expect(failed.status).toBe(503);
    expect(failed.body.checks["replication:lag"][0]).toMatchObject({ status: "fail" });
    expect(failed.body.checks["replication:lag"][0].output).toMatch(/waited more than 2 s for the replica/);
    expect(failed.body.checks["sqlite:writable"][0].status).toBe("pass");
  });
});
