/**
 * `npm run bench:mail [-- --subscribers=100000 --concurrency=10 --batch=500]`: one city's daily
 * digest to N subscribers, through the real outbox and sender, over SMTP to a local sink.
 *
 * Three processes, so that each figure is the sender's own: the database is seeded and the
 * digests queued in a child (scripts/bench/mail-seed.ts: the places import and the seeding do not
 * count in the sender's memory); the SMTP sink is another child (scripts/bench/mail-sink.ts, a
 * counting server that costs little CPU); this process only sends. Prints messages per second,
 * the sender's CPU per message (and the sink's), peak memory, and whether the goal is met.
 *
 * `--spread`: the readers are spread over five delivery times (5:00 to 9:00 AM New York time, one in
 * five each), queued at 4:00 AM; the sender runs with its clock at each hour in turn and sends what
 * is due then. `--hidden=F`: a share F of the readers hid sections (three different sets), so the
 * digest is rendered once per set. Without them, every reader's digest is due at once, as before.
 */
import { fork, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createContext } from "../src/app.ts";
import { loadConfig } from "../src/config/load.ts";
import { PROJECT_ROOT } from "../src/config/paths.ts";
import { createDigestCache } from "../src/services/mail/digest-cache.ts";
import { sendPendingMail } from "../src/services/mail/sender.ts";
import { outboxCounts } from "../src/store/mail/outbox.ts";
import { benchMorning } from "./bench/mail-spread.ts";
import { templateDb } from "./bench/template-db.ts";

const GOAL = { messagesPerSecond: 1500, peakRssMB: 300 };

if (process.argv.includes("--help")) {
  console.log(`npm run bench:mail [-- options]
  --subscribers=N   readers of the one city, each gets the digest (default 100000)
  --concurrency=N   SMTP connections (MAIL_CONCURRENCY, default 10; twice as many messages in flight)
  --batch=N         outbox rows claimed at once (MAIL_BATCH_SIZE, default 500)
  --spread          readers spread over five delivery times, 5:00 to 9:00 AM (default: all due at once)
  --hidden=F        the share of readers who hid sections, in three sets (default 0)
Goal: ${GOAL.messagesPerSecond.toLocaleString("en-US")} messages/s with the sender's peak RSS under ${GOAL.peakRssMB} MB.`);
  process.exit(0);
}
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const N = arg("subscribers", 100_000);
const CONCURRENCY = arg("concurrency", 10);
const BATCH = arg("batch", 500);
const SPREAD = process.argv.includes("--spread");
const HIDDEN = arg("hidden", 0);
const morning = benchMorning();
// The clock of each sending round: the five hours; or, as before, one round on the real clock.
const rounds: Array<{ label: string; at?: number }> = SPREAD ? morning.hours : [{ label: "all" }];

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-bench-mail-"));
fs.copyFileSync(templateDb(), path.join(dataDir, "citydaily.db"));
const seeded = spawnSync(process.execPath, [path.join(PROJECT_ROOT, "scripts/bench/mail-seed.ts"), String(N), SPREAD ? "spread" : "at-once", String(HIDDEN)], {
  env: { ...process.env, DATA_DIR: dataDir }, stdio: ["ignore", "inherit", "inherit"],
});
if (seeded.status !== 0) throw new Error("seeding failed");

const sink = fork(path.join(PROJECT_ROOT, "scripts/bench/mail-sink.ts"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
type SinkMessage = { port?: number; count?: number; bytes?: number; cpuMs?: number };
let received = 0;
const port = await new Promise<number>((resolve) => sink.on("message", (m: SinkMessage) => {
  if (m.port) resolve(m.port);
  if (m.count !== undefined) received = m.count;
}));
const sinkReport = () => new Promise<SinkMessage>((resolve) => {
  const on = (m: SinkMessage) => {
    if (m.cpuMs === undefined) return;
    sink.off("message", on);
    resolve(m);
  };
  sink.on("message", on);
  sink.send("report");
});

const config = loadConfig({
  ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent", SMTP_URL: `smtp://127.0.0.1:${port}`,
  MAIL_CONCURRENCY: String(CONCURRENCY), MAIL_BATCH_SIZE: String(BATCH), NOW: "",
});
const ctx = createContext(config);

let peakRss = process.memoryUsage().rss;
const startRss = peakRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

try {
  const sinkBefore = await sinkReport();
  const t = performance.now();
  const cpuBefore = process.cpuUsage();
  let sent = 0;
  let lastReport = t;
  // What the sender keeps from batch to batch (drainDueMail keeps one the same way).
  const cache = createDigestCache();
  const perRound: string[] = [];
  for (const round of rounds) {
    const before = sent;
    const roundStart = performance.now();
    for (;;) {
      const r = await sendPendingMail(ctx, round.at === undefined ? { cache } : { cache, now: () => round.at! });
      sent += r.sent;
      if (r.claimed === 0) break;
      if (r.failed || r.retried || r.deferred) throw new Error(`unexpected failures: ${JSON.stringify(r)}`);
      if (performance.now() - lastReport > 5000) {
        lastReport = performance.now();
        const mu = process.memoryUsage();
        console.log(`  ${sent.toLocaleString("en-US")} sent, ${Math.round(sent / ((lastReport - t) / 1000))} msg/s, RSS ${(mu.rss / 1e6).toFixed(0)} MB (heap ${(mu.heapUsed / 1e6).toFixed(0)} of ${(mu.heapTotal / 1e6).toFixed(0)} MB, external ${(mu.external / 1e6).toFixed(0)} MB)`);
      }
    }
    perRound.push(`${round.label} ${(sent - before).toLocaleString("en-US")} in ${((performance.now() - roundStart) / 1000).toFixed(1)} s`);
  }
  if (SPREAD) console.log(`by delivery time (New York): ${perRound.join(", ")}`);
  const seconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  while (received < sent) await new Promise((r) => setTimeout(r, 50));
  const sinkAfter = await sinkReport();
  clearInterval(sampler);
  // The kernel's high-water mark catches a peak between two samples.
  peakRss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
  const rate = sent / seconds;
  const mb = (b: number) => b / 1e6;
  console.log(`sent ${sent.toLocaleString("en-US")} digests in ${seconds.toFixed(1)} s: ${Math.round(rate).toLocaleString("en-US")} messages/s `
    + `(batch ${BATCH}, ${CONCURRENCY} SMTP connections${SPREAD ? ", five delivery times" : ""}${HIDDEN ? `, ${HIDDEN} of readers hid sections` : ""}); sink received ${received.toLocaleString("en-US")}, `
    + `${((sinkAfter.bytes! - sinkBefore.bytes!) / 1024 / sent).toFixed(1)} KiB a message on the wire`);
  console.log(`CPU per message: sender ${((cpu.user + cpu.system) / 1000 / sent).toFixed(3)} ms (${(cpu.system / 1000 / sent).toFixed(3)} of it in the kernel), `
    + `sink ${((sinkAfter.cpuMs! - sinkBefore.cpuMs!) / sent).toFixed(3)} ms; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
  console.log(`peak memory (RSS) of the sender process: ${mb(peakRss).toFixed(0)} MB (${mb(startRss).toFixed(0)} MB after start-up); outbox ${JSON.stringify(outboxCounts(ctx.db))}`);
  const met = rate >= GOAL.messagesPerSecond && mb(peakRss) < GOAL.peakRssMB;
  console.log(`goal (${GOAL.messagesPerSecond.toLocaleString("en-US")} messages/s, peak RSS under ${GOAL.peakRssMB} MB): ${met ? "met" : "NOT met"}`);
} finally {
  clearInterval(sampler);
  await ctx.mailer.close();
  ctx.db.close();
  sink.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
