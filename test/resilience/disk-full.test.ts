import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { startOpenMeteoServer, type OpenMeteoServer } from "../helpers/open-meteo-server.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The disk fills while the morning run publishes: a real full file system (a 256 KB tmpfs mounted
// over DATA_DIR/site; mounting needs root, which CI and the developers' machines have).

const NOW = "2026-11-22T18:00:00.000Z";
const CITIES = ["boise-idaho", "tucson-arizona", "st-louis-missouri"];

function mountable(): boolean {
  const dir = fs.mkdtempSync("/tmp/citydaily-mount-probe-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
    execFileSync("umount", [dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const canMount = mountable();
let meteo: OpenMeteoServer;
let server: TestServer;
let siteDir: string;

beforeAll(async () => {
  if (!canMount) return;
  meteo = await startOpenMeteoServer({ today: "2026-11-22" });
  server = await startTestServer({ OPEN_METEO_URL: meteo.url, NOW, PUBLISH_HOUR: "0", MAIL_SENDER: "off" });
  for (const slug of CITIES) addSubscriber(server.ctx.db, slug, `reader-${slug}@example.org`);
  siteDir = path.join(server.dataDir, "site");
  fs.mkdirSync(siteDir, { recursive: true });
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", siteDir]);
});
afterAll(async () => {
  if (siteDir) execFileSync("umount", ["-l", siteDir], { stdio: "ignore" });
  await server?.stop();
  await meteo?.close();
});

const count = (sql: string) => server.ctx.db.prepare(sql).pluck().get() as number;

describe.skipIf(!canMount)("disk full while publishing", () => {
  it("stores the editions and queues the digests, leaves no half site, and the next run finishes the publish", async () => {
    const first = await runMorning(server.ctx);
    expect(first.composed).toBe(3);
    expect(first.publishFailed).toBe(3);
    // The data is safe and served; the mail does not wait for the web pages.
    expect(count("SELECT count(*) FROM editions")).toBe(3);
    expect(count("SELECT count(*) FROM outbox WHERE kind = 'digest'")).toBe(3);
    expect(count("SELECT count(*) FROM edition_publish WHERE site_published_at IS NULL")).toBe(3);
    const api = await server.get("/api/archive/boise-idaho/2026-11-22");
    expect(api.status).toBe(200);
    // No generation went live half-written: the site has no live page yet, and the server still answers.
    expect(fs.existsSync(path.join(siteDir, "current"))).toBe(false);
    expect((await server.get("/boise-idaho/2026-11-22")).status).toBe(404);
    expect((await server.get("/api/cities")).status).toBe(200);

    // Room again: the next run publishes what was left, and queues nothing twice.
    execFileSync("mount", ["-o", "remount,size=256m", siteDir]);
    const second = await runMorning(server.ctx);
    expect(second.composed).toBe(0);
    expect(second.published).toBe(3);
    expect(second.publishFailed).toBe(0);
    expect(second.digestsQueued).toBe(0);
    expect(count("SELECT count(*) FROM outbox WHERE kind = 'digest'")).toBe(3);
    expect(count("SELECT count(*) FROM edition_publish WHERE site_published_at IS NULL")).toBe(0);
    for (const slug of CITIES) {
      const page = await server.get(`/${slug}/2026-11-22`);
      expect(page.status, slug).toBe(200);
      expect(await page.text()).toContain("2026");
    }
  });

  it("a full disk on a later morning keeps the live site as it was, and the run after frees it", async () => {
    const before = await (await server.get("/boise-idaho")).text();
    // Fill what is left of the file system.
    const filler = path.join(siteDir, "filler");
    const chunk = Buffer.alloc(1 << 20);
    try {
      for (;;) fs.appendFileSync(filler, chunk);
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC");
    }
    const nextDay = new Date("2026-11-23T18:00:00.000Z");
    const full = await runMorning(server.ctx, { now: nextDay });
    expect(full.composed).toBe(3);
    expect(full.publishFailed).toBe(3);
    // Readers still get yesterday's complete site; the new edition is in the API already.
    expect(await (await server.get("/boise-idaho")).text()).toBe(before);
    expect((await server.get("/boise-idaho/2026-11-22")).status).toBe(200);
    expect((await server.get("/boise-idaho/2026-11-23")).status).toBe(404);
    expect((await server.get("/api/archive/boise-idaho/2026-11-23")).status).toBe(200);

    fs.rmSync(filler);
    const after = await runMorning(server.ctx, { now: nextDay });
    expect(after.published).toBe(3);
    expect((await server.get("/boise-idaho/2026-11-23")).status).toBe(200);
    expect(count("SELECT count(*) FROM outbox WHERE kind = 'digest'")).toBe(6);
  });
});
