import DKIM from "nodemailer/lib/dkim";
import { parseConnectionUrl } from "nodemailer/lib/shared";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import type { RawMessage } from "./types.ts";

/**
 * Composed messages (message-template.ts) go out over nodemailer's SMTPConnection directly, a few
 * connections kept open, instead of through `transport.sendMail`: for a message that needs no
 * composing, sendMail's plugins, MailComposer and stream pipeline cost more than the SMTP exchange
 * itself (0.44 to 0.60 ms against 0.19 to 0.29 ms of CPU a message to a local sink: scripts/bench/mail-transport.ts). The SMTP
 * conversation (STARTTLS, AUTH, PIPELINING, dot-stuffing) stays nodemailer's; this file only keeps
 * connections: opens up to `maxConnections`, reuses an idle one, replaces one that failed or has
 * sent `maxMessages`. A connection the server closed while idle is noticed ('end') and not used
 * again; a message that fails goes back to the outbox like any other temporary failure.
 */
export interface RawPoolOptions {
  url: string;
  maxConnections: number;
  maxMessages: number;
  dkim?: { domainName: string; keySelector: string; privateKey: string };
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
}

interface Conn {
  smtp: SMTPConnection;
  sent: number;
  alive: boolean;
}

export function createRawPool(opts: RawPoolOptions) {
  const { service: _service, ...fromUrl } = parseConnectionUrl(opts.url);
  const dkim = opts.dkim ? new DKIM(opts.dkim) : undefined;
  const idle: Conn[] = [];
  const waiting: Array<(c: Conn | undefined) => void> = [];
  let open = 0;
  let closed = false;

  const connect = () => new Promise<Conn>((resolve, reject) => {
    const smtp = new SMTPConnection({
      ...fromUrl, connectionTimeout: opts.connectionTimeout, greetingTimeout: opts.greetingTimeout, socketTimeout: opts.socketTimeout,
    } as ConstructorParameters<typeof SMTPConnection>[0]);
    const conn: Conn = { smtp, sent: 0, alive: false };
    let settled = false;
    // SMTPConnection reports a failed connect (refused, timeout, TLS) as an 'error' event, not through connect's callback.
    const fail = (err: unknown) => {
      conn.alive = false;
      if (settled) return;
      settled = true;
      smtp.close();
      reject(err);
    };
    smtp.on("error", fail);
    smtp.on("end", () => fail(Object.assign(new Error("connection closed"), { code: "ECONNECTION" })));
    smtp.connect((err) => {
      if (err) return fail(err);
      const ready = () => {
        settled = true;
        conn.alive = true;
        resolve(conn);
      };
      if (!fromUrl.auth) return ready();
      smtp.login(fromUrl.auth, (e) => (e ? fail(e) : ready()));
    });
  });

  const acquire = async (): Promise<Conn | undefined> => {
    if (closed) throw new Error("mailer closed");
    for (let c = idle.pop(); c; c = idle.pop()) {
      if (c.alive) return c;
      c.smtp.close();
      open--;
    }
    if (open < opts.maxConnections) {
      open++;
      try {
        return await connect();
      } catch (err) {
        open--;
        throw err;
      }
    }
    return new Promise((resolve) => waiting.push(resolve));
  };

  const release = (c: Conn, ok: boolean) => {
    if (!ok || !c.alive || c.sent >= opts.maxMessages || closed) {
      if (ok && c.alive) c.smtp.quit();
      else c.smtp.close();
      c.alive = false;
      open--;
      // A waiter gets a new connection of its own (undefined: acquire again).
      waiting.shift()?.(undefined);
      return;
    }
    const next = waiting.shift();
    if (next) next(c);
    else idle.push(c);
  };

  // A new envelope object each time: SMTPConnection keeps its state on the one it is given.
  const sendOn = (c: Conn, message: RawMessage, raw: Buffer) => new Promise<void>((resolve, reject) => {
    c.smtp.send({ from: message.envelope.from, to: [message.envelope.to] }, raw, (err) => (err ? reject(err) : resolve()));
  });

  const signed = async (raw: Buffer): Promise<Buffer> => {
    if (!dkim) return raw;
    const chunks: Buffer[] = [];
    for await (const chunk of dkim.sign(raw)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  return {
    async send(message: RawMessage): Promise<void> {
      const raw = await signed(message.raw);
      let c = await acquire();
      while (!c) c = await acquire();
      try {
        await sendOn(c, message, raw);
        c.sent++;
        release(c, true);
      } catch (err) {
        release(c, false);
        throw err;
      }
    },
    close() {
      closed = true;
      for (const c of idle.splice(0)) c.smtp.quit();
      for (const w of waiting.splice(0)) w(undefined);
    },
  };
}
