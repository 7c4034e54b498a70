import DKIM from "nodemailer/lib/dkim";
import { parseConnectionUrl } from "nodemailer/lib/shared";
import type SMTPConnection from "nodemailer/lib/smtp-connection";
import { closedError, connect, type Conn, type ConnectionSettings } from "./smtp-raw-connection.ts";
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

interface Waiter {
  resolve: (c: Conn | undefined) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/** The pool's bookkeeping: connections idle, busy and being opened, and the requests waiting for one. */
interface Pool {
  opts: RawPoolOptions;
  settings: ConnectionSettings;
  dkim: DKIM | undefined;
  idle: Conn[];
  busy: Set<Conn>;
  connecting: Set<SMTPConnection>;
  waiting: Waiter[];
  open: number;
  closed: boolean;
}

/**
 * Every wait is bounded: a connect by `connectionTimeout` + `greetingTimeout` (and `socketTimeout`
 * for AUTH), a send by `socketTimeout` of silence, a wait for a free connection by all three. A
 * connect that fails fails every request waiting for a connection with the same error (the relay is
 * unreachable for them too); `close()` ends busy connections as well, so nothing waits past it.
 */
export function createRawPool(opts: RawPoolOptions) {
  const pool: Pool = {
    opts, settings: connectionSettings(opts), dkim: opts.dkim ? new DKIM(opts.dkim) : undefined,
    idle: [], busy: new Set(), connecting: new Set(), waiting: [], open: 0, closed: false,
  };
  return {
    send: (message: RawMessage): Promise<void> => send(pool, message),
    /** Ends every connection, idle or busy; requests waiting or in flight fail with code ECLOSED. */
    close() {
      pool.closed = true;
      for (const c of pool.idle.splice(0)) c.smtp.quit();
      for (const smtp of pool.connecting) smtp.close();
      for (const c of pool.busy) {
        c.cut?.(closedError());
        c.smtp.close();
      }
      failWaiters(pool, closedError());
    },
  };
}

function connectionSettings(opts: RawPoolOptions): ConnectionSettings {
  const { service: _service, ...fromUrl } = parseConnectionUrl(opts.url);
  // Timeouts given in SMTP_URL's query (`?greetingTimeout=2000`) win over the defaults.
  const timeouts = {
    connectionTimeout: (fromUrl.connectionTimeout as number | undefined) ?? opts.connectionTimeout,
    greetingTimeout: (fromUrl.greetingTimeout as number | undefined) ?? opts.greetingTimeout,
    socketTimeout: (fromUrl.socketTimeout as number | undefined) ?? opts.socketTimeout,
  };
  return { fromUrl, timeouts, waitBound: timeouts.connectionTimeout + timeouts.greetingTimeout + timeouts.socketTimeout };
}

// The send path: sign, take a connection, send on it, give it back.

async function send(pool: Pool, message: RawMessage): Promise<void> {
  const raw = await signed(pool, message.raw);
  let c = await acquire(pool);
  while (!c) c = await acquire(pool);
  pool.busy.add(c);
  try {
    await sendOn(c, message, raw);
    c.sent++;
    release(pool, c, true);
  } catch (err) {
    release(pool, c, false);
    throw err;
  }
}

async function signed(pool: Pool, raw: Buffer): Promise<Buffer> {
  if (!pool.dkim) return raw;
  const chunks: Buffer[] = [];
  for await (const chunk of pool.dkim.sign(raw)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// A new envelope object each time: SMTPConnection keeps its state on the one it is given.
// A connection that dies mid-send (or is ended by close()) may never call back: `cut` settles it.
function sendOn(c: Conn, message: RawMessage, raw: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    c.cut = reject;
    c.smtp.send({ from: message.envelope.from, to: [message.envelope.to] }, raw, (err) => (err ? reject(err) : resolve()));
  }).finally(() => { c.cut = undefined; });
}

// The bookkeeping: which connection a request gets, and what becomes of it afterwards.

/** An idle connection, a new one, or (once one is free) undefined: a free slot, acquire again. */
async function acquire(pool: Pool): Promise<Conn | undefined> {
  if (pool.closed) throw closedError();
  for (let c = pool.idle.pop(); c; c = pool.idle.pop()) {
    if (c.alive) return c;
    c.smtp.close();
    pool.open--;
  }
  if (pool.open < pool.opts.maxConnections) {
    pool.open++;
    try {
      return await connect(pool.settings, pool.connecting, () => pool.closed);
    } catch (err) {
      pool.open--;
      // The relay refused this connect; those waiting would meet the same fate: they fail now
      // (into the outbox's backoff) instead of waiting for a connection that will not come.
      failWaiters(pool, err);
      throw err;
    }
  }
  return new Promise<Conn | undefined>((resolve, reject) => {
    const w: Waiter = {
      resolve, reject,
      timer: setTimeout(() => {
        const i = pool.waiting.indexOf(w);
        if (i >= 0) pool.waiting.splice(i, 1);
        reject(Object.assign(new Error("no SMTP connection free in time"), { code: "ETIMEDOUT" }));
      }, pool.settings.waitBound),
    };
    pool.waiting.push(w);
  });
}

function release(pool: Pool, c: Conn, ok: boolean): void {
  pool.busy.delete(c);
  if (!ok || !c.alive || c.sent >= pool.opts.maxMessages || pool.closed) {
    if (ok && c.alive) c.smtp.quit();
    else c.smtp.close();
    c.alive = false;
    pool.open--;
    // A waiter gets a new connection of its own (undefined: acquire again).
    handOver(pool, undefined);
    return;
  }
  if (!handOver(pool, c)) pool.idle.push(c);
}

/** Hands a free connection (or a free slot: undefined) to the first waiter. */
function handOver(pool: Pool, c: Conn | undefined): boolean {
  const w = pool.waiting.shift();
  if (!w) return false;
  clearTimeout(w.timer);
  w.resolve(c);
  return true;
}

function failWaiters(pool: Pool, err: unknown): void {
  for (const w of pool.waiting.splice(0)) {
    clearTimeout(w.timer);
    w.reject(err);
  }
}
