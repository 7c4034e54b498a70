/**
 * `npm run bench:mail [-- --subscribers=100000]`: one city's daily digest to N subscribers, through
 * the real outbox and sender, over SMTP to a local sink (smtp-server in a child process, counting
 * only, so its CPU is not ours). Prints queueing time, messages per second and peak memory.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createContext } from "../src/app.ts";
import { loadConfig, PROJECT_ROOT } from "../src/config.ts";
import { queueEditionDigests } from "../src/services/digests.ts";
import { sendPendingMail } from "../src/services/mail-sender.ts";
import { insertEdition } from "../src/store/editions.ts";
import { outboxCounts } from "../src/store/outbox.ts";

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const N = arg("subscribers", 100_000);
const CONCURRENCY = arg("concurrency", 10);
const BATCH = arg("batch", 500);

const sink = fork(path.join(PROJECT_ROOT, "test/helpers/smtp-sink.ts"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
let received = 0;
const port = await new Promise<number>((resolve) => sink.on("message", (m: { port?: number; count?: number }) => {
  if (m.port) resolve(m.port);
  if (m.count !== undefined) received = m.count;
}));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-mail-"));
const template = path.join(PROJECT_ROOT, "test/.cache/template/citydaily.db");
if (fs.existsSync(template)) fs.copyFileSync(template, path.join(dataDir, "citydaily.db"));
const config = loadConfig({
  ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent", SMTP_URL: `smtp://127.0.0.1:${port}`,
  MAIL_CONCURRENCY: String(CONCURRENCY), MAIL_BATCH_SIZE: String(BATCH), NOW: "",
});
const ctx = createContext(config);

let peakRss = process.memoryUsage().rss;
const baselineRss = peakRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

try {
  const place = ctx.db.prepare("SELECT geoid, name FROM places WHERE slug = 'new-york-new-york'").get() as { geoid: string; name: string };
  const now = new Date().toISOString();
  let t = performance.now();
  const insert = ctx.db.prepare(`INSERT INTO subscribers (email, place_geoid, created_at, updated_at) VALUES (?, ?, ?, ?)`);
  ctx.db.transaction(() => {
    for (let i = 0; i < N; i++) insert.run(`reader${i}@example.org`, place.geoid, now, now);
  })();
  console.log(`seeded ${N.toLocaleString("en-US")} subscribers in ${Math.round(performance.now() - t)} ms`);

  const body = "Partly cloudy, high of 48°F. Sunrise 6:51, sunset 16:31. ".repeat(40);
  const editionId = insertEdition(ctx.db, {
    placeGeoid: place.geoid, date: now.slice(0, 10), subject: `${place.name}: your morning edition`,
    markdown: `# ${place.name}\n\n${body}\n`, html: `<h1>${place.name}</h1><p>${body}</p>`, publishedAt: now,
  })!;
  t = performance.now();
  const queued = queueEditionDigests(ctx, { id: editionId, placeGeoid: place.geoid, date: now.slice(0, 10) });
  console.log(`queued ${queued.toLocaleString("en-US")} digests in ${Math.round(performance.now() - t)} ms`);

  t = performance.now();
  const cpuBefore = process.cpuUsage();
  let sent = 0;
  let lastReport = t;
  for (;;) {
    const r = await sendPendingMail(ctx);
    sent += r.sent;
    if (r.claimed === 0) break;
    if (r.failed || r.retried) throw new Error(`unexpected failures: ${JSON.stringify(r)}`);
    if (performance.now() - lastReport > 5000) {
      lastReport = performance.now();
      console.log(`  ${sent.toLocaleString("en-US")} sent, ${Math.round(sent / ((lastReport - t) / 1000))} msg/s, RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`);
    }
  }
  const seconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  while (received < sent) await new Promise((r) => setTimeout(r, 50));
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
  console.log(`sent ${sent.toLocaleString("en-US")} digests in ${seconds.toFixed(1)} s: ${Math.round(sent / seconds).toLocaleString("en-US")} messages/s `
    + `(batch ${BATCH}, ${CONCURRENCY} SMTP connections); sink received ${received.toLocaleString("en-US")}`);
  console.log(`sender CPU: ${((cpu.user + cpu.system) / 1000 / sent).toFixed(2)} ms per message (user+system), ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  console.log(`peak memory (RSS) of the sender process: ${mib(peakRss)} (${mib(baselineRss)} after start-up, before seeding); outbox ${JSON.stringify(outboxCounts(ctx.db))}`);
} finally {
  clearInterval(sampler);
  await ctx.mailer.close();
  ctx.db.close();
  sink.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
