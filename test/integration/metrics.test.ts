import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackupStore } from "../../src/integrations/backup/s3.ts";
import { backupToStore } from "../../src/services/platform/backups.ts";
import { runMorning } from "../../src/services/morning/run-morning.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// /metrics as Prometheus reads it: on its own port (METRICS_PORT), accepted by `promtool check
// metrics`, request durations by route pattern (never a town's slug), and the figures of a real
// morning run, the outbox, a real backup and the database read at scrape time.

// 12:00 UTC: 07:00 in New York (an hour past the 6 o'clock publication), 02:00 in Honolulu.
const NOW = "2026-11-22T12:00:00.000Z";
const TOWNS = ["new-york-new-york", "honolulu-hawaii", "ely-nevada", "boise-idaho", "austin-texas"];
let server: TestServer;

interface Sample { name: string; labels: Record<string, string>; value: number }

function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(server.metricsUrl!);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return { text, samples: parse(text) };
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
const has = (samples: Sample[], name: string) => samples.some((s) => s.name === name);

function promtool(args: string[], input: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("promtool", args, { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c));
    child.stderr.on("data", (c: Buffer) => (output += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
    child.stdin.end(input);
  });
}

beforeAll(async () => {
  server = await startTestServer({ NOW, METRICS_PORT: "0", MAIL_SENDER: "off", WEATHER_TIMEOUT_MS: "2000" });
  addSubscriber(server.ctx.db, "new-york-new-york", "reader@example.org");
  addSubscriber(server.ctx.db, "new-york-new-york", "second@example.org");
  addSubscriber(server.ctx.db, "honolulu-hawaii", "reader@example.org");
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe("/metrics", () => {
  it("answers on its own port on 127.0.0.1, and only there", async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(server.metricsUrl!).port).not.toBe(new URL(server.url).port);
    expect((await server.get("/metrics")).status).toBe(404);
    expect((await fetch(server.metricsUrl!.replace(/\/metrics$/, "/other"))).status).toBe(404);
  });

  it("tells before a run that New York's morning has not run, then the run's figures", async () => {
    const before = (await scrape()).samples;
    expect(value(before, "citydaily_morning_towns_overdue", { timezone: "America/New_York" })).toBe(1);
    expect(value(before, "citydaily_morning_towns_overdue", { timezone: "Pacific/Honolulu" })).toBe(0);
    expect(value(before, "citydaily_morning_towns_subscribed", { timezone: "America/New_York" })).toBe(1);
    expect(has(before, "citydaily_morning_last_run_timestamp_seconds")).toBe(false);

    const summary = await runMorning(server.ctx);
    expect(summary.composed).toBe(1);
    const after = (await scrape()).samples;
    expect(value(after, "citydaily_morning_towns_overdue", { timezone: "America/New_York" })).toBe(0);
    expect(value(after, "citydaily_morning_towns_due")).toBe(1);
    expect(value(after, "citydaily_morning_towns_composed")).toBe(1);
    // The forecast provider is a closed port here: the edition went without.
    expect(value(after, "citydaily_morning_towns_without_forecast")).toBe(1);
    // On the run's clock (the server's pinned NOW), not the machine's: it finished at `now` plus its duration.
    const finished = (Date.parse(summary.at) + summary.ms) / 1000;
    expect(value(after, "citydaily_morning_last_run_timestamp_seconds")).toBeCloseTo(finished, 2);
    expect(value(after, "citydaily_morning_last_run_duration_seconds")).toBeCloseTo(summary.ms / 1000, 3);
    expect(value(after, "citydaily_source_requests_total", { source: "open-meteo-forecast" })).toBeGreaterThan(0);
    expect(value(after, "citydaily_source_failures_total", { source: "open-meteo-forecast" })).toBe(value(after, "citydaily_source_requests_total", { source: "open-meteo-forecast" }));
    expect(value(after, "citydaily_source_towns_without", { source: "open-meteo-forecast" })).toBe(1);
    expect(after.some((s) => s.name === "citydaily_source_circuit_open" && s.labels.source === "nws-alerts")).toBe(true);
    // Two readers' digests wait in the outbox (the sender is off).
    expect(value(after, "citydaily_outbox_pending_messages")).toBeGreaterThanOrEqual(2);
    expect(value(after, "citydaily_mail_sent_total")).toBe(0);
  });

  it("is accepted by promtool check metrics, names the process and SQLite figures", async () => {
    const { text, samples } = await scrape();
    const check = await promtool(["check", "metrics"], text);
    expect(check.output).toBe("");
    expect(check.code).toBe(0);
    expect(has(samples, "process_cpu_user_seconds_total")).toBe(true);
    expect(has(samples, "nodejs_eventloop_lag_seconds")).toBe(true);
    expect(value(samples, "citydaily_sqlite_wal_bytes")).toBeGreaterThan(0);
    expect(value(samples, "citydaily_sqlite_database_bytes")).toBeGreaterThan(1e6);
    expect(value(samples, "citydaily_data_disk_free_bytes")).toBeGreaterThan(0);
    expect(value(samples, "citydaily_replication_configured")).toBe(0);
    expect(value(samples, "citydaily_ready")).toBe(1);
  });

  it("counts each request under its route pattern, never a town's slug or a raw path", async () => {
    const count = async (route: string) => value((await scrape()).samples, "citydaily_http_request_duration_seconds_count", { route, method: "GET" });
    const pages = await count("/:slug");
    const api = await count("/api/city/{slug}".replace("{slug}", ":slug"));
    for (const slug of TOWNS) {
      await (await server.get(`/${slug}`)).text();
      // Twice: the second may come from the edge cache, which is timed too.
      await (await server.get(`/api/city/${slug}`)).text();
      await (await server.get(`/api/city/${slug}`)).text();
      await (await server.get(`/${slug}/2026-11-22`)).text();
    }
    await (await server.get("/wp-admin/setup-config.php")).text();
    await (await server.get("/a/b/c/d")).text();
    expect(await count("/:slug")).toBe(pages + TOWNS.length);
    expect(await count("/api/city/:slug")).toBe(api + 2 * TOWNS.length);
    const { text, samples } = await scrape();
    const labels = samples.flatMap((s) => Object.values(s.labels));
    for (const slug of TOWNS) {
      expect(labels.filter((l) => l.includes(slug))).toEqual([]);
      expect(text).not.toContain(slug);
    }
    expect(labels.filter((l) => l.includes("wp-admin") || l.includes("/a/b"))).toEqual([]);
    const routes = new Set(samples.filter((s) => s.name === "citydaily_http_request_duration_seconds_count").map((s) => s.labels.route));
    expect(routes).toContain("/:slug/:date");
    expect(routes).toContain("other");
    expect(routes.size).toBeLessThan(15);
  });

  it("tells when the last good backup was taken", async () => {
    const bucket = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bucket-"));
    // A bucket in a folder: the real backup (VACUUM INTO, integrity_check), uploaded by copying.
    const store: BackupStore = {
      upload: async (file, name) => (fs.copyFileSync(file, path.join(bucket, name)), { key: name, bytes: fs.statSync(file).size }),
      list: async () => fs.readdirSync(bucket).sort(),
      download: async (name, file) => fs.copyFileSync(path.join(bucket, name), file),
      remove: async (name) => fs.rmSync(path.join(bucket, name)),
    };
    try {
      const before = Math.floor(Date.now() / 1000);
      const { name } = await backupToStore(server.ctx.config, server.ctx.db, store);
      const at = value((await scrape()).samples, "citydaily_backup_last_success_timestamp_seconds");
      expect(name).toMatch(/^citydaily-\d{8}T\d{6}Z\.db$/);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(Date.now() / 1000);
    } finally {
      fs.rmSync(bucket, { recursive: true, force: true });
    }
  });
});
