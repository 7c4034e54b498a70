/**
 * `node scripts/bench/mail-transport.ts`: the same 12 KB raw message, 20,000 times over 10
 * connections to the benchmark's sink, once through nodemailer's pooled `transport.sendMail({ raw })`
 * and once through `SMTPConnection.send` on kept-open connections (what src/integrations/mail/
 * smtp-raw-pool.ts does). Prints the sender's CPU per message for each, twice.
 */
import { fork } from "node:child_process";
import path from "node:path";
import nodemailer from "nodemailer";
import SMTPConnection from "nodemailer/lib/smtp-connection";

const N = 20_000;
const C = 10;
const sink = fork(path.join(import.meta.dirname, "mail-sink.ts"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
const port = await new Promise<number>((resolve) => sink.on("message", (m: { port?: number }) => m.port && resolve(m.port)));
const raw = Buffer.from(`X-Test: 1\r\nSubject: hi\r\n\r\n${"Partly cloudy, high of 48=C2=B0F. Sunrise 6:51, sunset 16:31. =\r\n".repeat(170)}`, "latin1");
// A new envelope each time: SMTPConnection keeps state on the object it is given.
const envelope = () => ({ from: "news@example.org", to: ["reader@example.org"] });

/** `inFlight` workers, each sending one message at a time (worker w may keep to its own connection). */
async function run(label: string, send: (worker: number) => Promise<unknown>, inFlight: number) {
  let i = 0;
  const cpu = process.cpuUsage();
  const t = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async (_, w) => {
    while (i++ < N) await send(w);
  }));
  const used = process.cpuUsage(cpu);
  console.log(`${label}: ${((used.user + used.system) / 1000 / N).toFixed(3)} ms of CPU a message, ${Math.round(N / ((performance.now() - t) / 1000))} messages/s`);
}

for (let round = 0; round < 2; round++) {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, pool: true, maxConnections: C, maxMessages: 1000 });
  await run("transport.sendMail({ raw })", () => transport.sendMail({ raw, messageId: "<bench@example.org>", envelope: envelope() }), 2 * C);
  transport.close();

  const conns = await Promise.all(Array.from({ length: C }, () => new Promise<SMTPConnection>((resolve, reject) => {
    const c = new SMTPConnection({ host: "127.0.0.1", port });
    c.once("error", reject);
    c.connect(() => resolve(c));
  })));
  await run("SMTPConnection.send", (w) => new Promise((resolve, reject) => {
    conns[w].send(envelope(), raw, (err, info) => (err ? reject(err) : resolve(info)));
  }), C);
  for (const c of conns) c.quit();
}
sink.kill();
