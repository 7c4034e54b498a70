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
  /** Fails the send in flight on this connection, if any (the connection ended, or close()). */
  cut?: (err: Error) => void;
}

interface Waiter {
  resolve: (c: Conn | undefined) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

const closedError = () => Object.assign(new Error("mailer closed"), { code: "ECLOSED" });

/**
 * Every wait is bounded: a connect by `connectionTimeout` + `greetingTimeout` (and `socketTimeout`
 * for AUTH), a send by `socketTimeout` of silence, a wait for a free connection by all three. A
 * connect that fails fails every request waiting for a connection with the same error (the relay is
 * unreachable for them too); `close()` ends busy connections as well, so nothing waits past it.
 */
export function createRawPool(opts: RawPoolOptions) {
  const { service: _service, ...fromUrl } = parseConnectionUrl(opts.url);
  // Timeouts given in SMTP_URL's query (`?greetingTimeout=2000`) win over the defaults.
  const timeouts = {
    connectionTimeout: (fromUrl.connectionTimeout as number | undefined) ?? opts.connectionTimeout,
    greetingTimeout: (fromUrl.greetingTimeout as number | undefined) ?? opts.greetingTimeout,
    socketTimeout: (fromUrl.socketTimeout as number | undefined) ?? opts.socketTimeout,
  };
  const waitBound = timeouts.connectionTimeout + timeouts.greetingTimeout + timeouts.socketTimeout;
  const dkim = opts.dkim ? new DKIM(opts.dkim) : undefined;
  const idle: Conn[] = [];
  const busy = new Set<Conn>();
  const connecting = new Set<SMTPConnection>();
  const waiting: Waiter[] = [];
  let open = 0;
  let closed = false;

  const connect = () => new Promise<Conn>((resolve, reject) => {
    const smtp = new SMTPConnection({ ...fromUrl, ...timeouts } as ConstructorParameters<typeof SMTPConnection>[0]);
    const conn: Conn = { smtp, sent: 0, alive: false };
    let settled = false;
    connecting.add(smtp);
    // AUTH has no timeout of its own in SMTPConnection: bound the whole opening.
    const bound = setTimeout(() => fail(Object.assign(new Error("connection not ready in time"), { code: "ETIMEDOUT" })), waitBound);
    // SMTPConnection reports a failed connect (refused, timeout, TLS) as an 'error' event, not through connect's callback.
    const fail = (err: unknown) => {
      conn.alive = false;
      if (settled) return;
      settled = true;
      connecting.delete(smtp);
      clearTimeout(bound);
      smtp.close();
      reject(err);
    };
    smtp.on("error", fail);
    smtp.on("end", () => {
      const err = Object.assign(new Error(closed ? "mailer closed" : "connection closed"), { code: closed ? "ECLOSED" : "ECONNECTION" });
      fail(err);
      conn.cut?.(err);
    });
    smtp.connect((err) => {
      if (err) return fail(err);
      const ready = () => {
        if (settled) return;
        settled = true;
        connecting.delete(smtp);
        clearTimeout(bound);
        conn.alive = true;
        resolve(conn);
      };
      if (!fromUrl.auth) return ready();
      smtp.login(fromUrl.auth, (e) => (e ? fail(e) : ready()));
    });
  });

  /** Hands a free connection (or a free slot: undefined) to the first waiter. */
  const handOver = (c: Conn | undefined): boolean => {
    const w = waiting.shift();
    if (!w) return false;
    clearTimeout(w.timer);
    w.resolve(c);
    return true;
  };

  const failWaiters = (err: unknown) => {
    for (const w of waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  };

  const acquire = async (): Promise<Conn | undefined> => {
    if (closed) throw closedError();
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
        // The relay refused this connect; those waiting would meet the same fate: they fail now
        // (into the outbox's backoff) instead of waiting for a connection that will not come.
        failWaiters(err);
        throw err;
      }
    }
    return new Promise<Conn | undefined>((resolve, reject) => {
      const w: Waiter = {
        resolve, reject,
        timer: setTimeout(() => {
          const i = waiting.indexOf(w);
          if (i >= 0) waiting.splice(i, 1);
          reject(Object.assign(new Error("no SMTP connection free in time"), { code: "ETIMEDOUT" }));
        }, waitBound),
      };
      waiting.push(w);
    });
  };

  const release = (c: Conn, ok: boolean) => {
    busy.delete(c);
    if (!ok || !c.alive || c.sent >= opts.maxMessages || closed) {
      if (ok && c.alive) c.smtp.quit();
      else c.smtp.close();
      c.alive = false;
      open--;
      // A waiter gets a new connection of its own (undefined: acquire again).
      handOver(undefined);
      return;
    }
    if (!handOver(c)) idle.push(c);
  };

  // A new envelope object each time: SMTPConnection keeps its state on the one it is given.
  // A connection that dies mid-send (or is ended by close()) may never call back: `cut` settles it.
  const sendOn = (c: Conn, message: RawMessage, raw: Buffer) => new Promise<void>((resolve, reject) => {
    c.cut = reject;
    c.smtp.send({ from: message.envelope.from, to: [message.envelope.to] }, raw, (err) => (err ? reject(err) : resolve()));
  }).finally(() => { c.cut = undefined; });

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
      busy.add(c);
      try {
        await sendOn(c, message, raw);
        c.sent++;
        release(c, true);
      } catch (err) {
        release(c, false);
        throw err;
      }
    },
    /** Ends every connection, idle or busy; requests waiting or in flight fail with code ECLOSED. */
    close() {
      closed = true;
      for (const c of idle.splice(0)) c.smtp.quit();
      for (const smtp of connecting) smtp.close();
      for (const c of busy) {
        c.cut?.(closedError());
        c.smtp.close();
      }
      failWaiters(closedError());
    },
  };
}
