/**
 * The benchmark's SMTP sink (`npm run bench:mail` forks it): accepts and counts messages, nothing
 * else, so that as little CPU as possible goes to the receiving end on the machine under test.
 * smtp-server (test/helpers/smtp-sink.ts, which the tests use) parses every command and streams
 * every message through its own transforms; here a connection is a line reader that answers
 * each pipelined batch of commands with one write and looks for the end of the data (CRLF.CRLF).
 * Enough SMTP for nodemailer: EHLO (with PIPELINING), MAIL, RCPT, DATA, RSET, NOOP, QUIT.
 *
 * Over IPC: sends `{ port }` once listening, `{ count }` as messages arrive, and
 * `{ count, bytes, cpuMs }` (bytes received, CPU used so far) when asked with `"report"`.
 */
import net from "node:net";

const END = Buffer.from("\r\n.\r\n");
let count = 0;
let bytes = 0;

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  let inData = false;
  // Command bytes not yet ended by CRLF, or the last bytes of the data (a terminator may straddle two reads).
  let pending = Buffer.alloc(0);
  socket.write("220 bench-sink ESMTP\r\n");
  socket.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    let buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let replies = "";
    for (;;) {
      if (inData) {
        const end = buf.indexOf(END);
        if (end < 0) {
          // Keep only what could be the start of a terminator.
          buf = buf.subarray(Math.max(0, buf.length - (END.length - 1)));
          break;
        }
        inData = false;
        count++;
        replies += "250 2.0.0 queued\r\n";
        buf = buf.subarray(end + END.length);
        continue;
      }
      const eol = buf.indexOf("\r\n");
      if (eol < 0) break;
      const verb = buf.toString("latin1", 0, Math.min(eol, 4)).toUpperCase();
      buf = buf.subarray(eol + 2);
      if (verb === "EHLO") replies += "250-bench-sink\r\n250-PIPELINING\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE 52428800\r\n";
      else if (verb === "DATA") {
        replies += "354 go ahead\r\n";
        inData = true;
        // The message starts right after DATA; a terminator right at its start would be "." CRLF.
        buf = Buffer.concat([Buffer.from("\r\n"), buf]);
      } else if (verb === "QUIT") {
        socket.end(`${replies}221 bye\r\n`);
        return;
      } else replies += "250 ok\r\n";
    }
    pending = Buffer.from(buf);
    if (replies) socket.write(replies);
  });
  socket.on("error", () => {});
});

server.listen(0, "127.0.0.1", () => process.send?.({ port: (server.address() as net.AddressInfo).port }));
let reported = 0;
setInterval(() => {
  if (count !== reported) process.send?.({ count: (reported = count) });
}, 50).unref();
process.on("message", (m) => {
  if (m !== "report") return;
  const cpu = process.cpuUsage();
  process.send?.({ count, bytes, cpuMs: (cpu.user + cpu.system) / 1000 });
});
process.on("disconnect", () => process.exit(0));
