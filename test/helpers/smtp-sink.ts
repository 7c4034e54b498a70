import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer, type SMTPServerSession } from "smtp-server";

// smtp-server waits 100 ms after accepting a connection before it greets (to catch clients that talk
// too soon); the sink greets at once, as most relays do. The mail tests open connection after
// connection, each round waiting on one: the wait was most of their time (a round 320 ms -> 20 ms).
const { SMTPConnection } = (await import("smtp-server/lib/smtp-connection.js" as string)) as {
  SMTPConnection: { prototype: { init(): void; _setListeners(ready: () => void): void; connectionReady(): void } };
};
SMTPConnection.prototype.init = function init(this: typeof SMTPConnection.prototype) {
  this._setListeners(() => this.connectionReady());
};

/** One message as the sink accepted it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
  /** The message came over a connection upgraded with STARTTLS. */
  secure: boolean;
  /** Raw (unfolded) value of the first header with this name. */
  header(name: string): string | undefined;
}

export interface SmtpSinkOptions {
  /** Parse every message with mailparser (default); the benchmark only counts. */
  parse?: boolean;
  /** Wait this long before answering the end of DATA, like a slow server. */
  delayMs?: number;
  port?: number;
  /** Offer STARTTLS (smtp-server's built-in self-signed certificate). */
  starttls?: boolean;
  /** Offer AUTH (PLAIN/LOGIN without TLS) and accept any credentials, unless `fault` is at "auth". */
  auth?: boolean;
}

/**
 * Where a misbehaving sink fails every session. Stages with a reply answer `code` there:
 * "greeting" (the banner, e.g. a 554 for a blocklisted IP or 421), "auth", "mail" (MAIL FROM),
 * "rcpt" (every RCPT TO), "afterData" (the reply to the message's end). "ehlo" and "data" answer
 * smtp-server's 500 "command not recognized" (its hooks cannot reply otherwise there).
 * Without a reply: "drop" accepts the connection and closes it at once; "silent" accepts and never greets;
 * "authSilent" never answers AUTH.
 */
export type SmtpFault =
  | { stage: "greeting" | "auth" | "mail" | "rcpt" | "afterData"; code: number; message?: string }
  | { stage: "ehlo" | "data" | "drop" | "silent" | "authSilent" };

/**
 * A real SMTP server (smtp-server) on 127.0.0.1 that keeps what it accepts, parsed with mailparser.
 * It can refuse recipients (4xx: try later, 5xx: permanent), be slow, be stopped, and start again on
 * the same port. A message counts as received only if the client is still connected when the
 * server answers 250, as with a real MTA.
 */
export class SmtpSink {
  messages: ReceivedMail[] = [];
  count = 0;
  port = 0;
  delayMs: number;
  /** Reply to every RCPT with this code (e.g. 451) while set. */
  refuseAll: { code: number; message: string } | undefined;
  /** Per-address RCPT replies, e.g. 550 for an address that does not exist. */
  refuseRecipient = new Map<string, { code: number; message: string }>();
  /** Called with each message's raw text the moment its data ends, before the server answers. */
  onArrival: ((raw: string) => void) | undefined;
  /** Fail every new session this way while set (see SmtpFault); connections it counts in `sessions`. */
  fault: SmtpFault | undefined;
  /** Connections accepted, whatever became of them. */
  sessions = 0;
  /** RCPT TO commands received, whatever the answer. */
  rcpts = 0;
  readonly #auth: boolean;
  readonly #silent = new Set<import("node:net").Socket>();
  readonly #parse: boolean;
  readonly #starttls: boolean;
  #server: SMTPServer | undefined;
  #closed = new WeakSet<SMTPServerSession>();
  #waiters: Array<() => void> = [];

  constructor(opts: SmtpSinkOptions = {}) {
    this.#parse = opts.parse ?? true;
    this.#starttls = opts.starttls ?? false;
    this.#auth = opts.auth ?? false;
    this.delayMs = opts.delayMs ?? 0;
    this.port = opts.port ?? 0;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const reply = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });
    const faultAt = (stage: SmtpFault["stage"]) => {
      const f = this.fault;
      return f && f.stage === stage && "code" in f ? reply(f.code, f.message ?? `${f.code} refused at ${stage}`) : undefined;
    };
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: this.#auth ? [] : ["AUTH"],
      allowInsecureAuth: true,
      hideSTARTTLS: !this.#starttls,
      logger: false,
      closeTimeout: 50,
      // No reverse lookup of 127.0.0.1 (up to 1.5 s a connection where DNS does not answer).
      disableReverseLookup: true,
      size: 10 * 1024 * 1024,
      onConnect: (session, cb) => {
        this.sessions++;
        const f = this.fault;
        if (f?.stage === "silent") return; // never greets: the callback is never called
        if (f?.stage === "ehlo") session.disabledCommands = ["EHLO", "HELO", "AUTH"];
        if (f?.stage === "data") session.disabledCommands = this.#auth ? ["DATA"] : ["DATA", "AUTH"];
        cb(faultAt("greeting"));
      },
      onAuth: (auth, _session, cb) => {
        if (this.fault?.stage === "authSilent") return; // never answers
        const err = faultAt("auth");
        cb(err ?? null, err ? undefined : { user: auth.username });
      },
      onMailFrom: (_address, _session, cb) => cb(faultAt("mail")),
      onRcptTo: (address, _session, cb) => {
        this.rcpts++;
        const atRcpt = faultAt("rcpt");
        if (atRcpt) return cb(atRcpt);
        const refusal = this.refuseRecipient.get(address.address.toLowerCase()) ?? this.refuseAll;
        if (!refusal) return cb();
        const err = new Error(refusal.message) as Error & { responseCode: number };
        err.responseCode = refusal.code;
        cb(err);
      },
      onClose: (session) => {
        this.#closed.add(session);
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          this.onArrival?.(raw);
          const finish = async () => {
            if (this.#closed.has(session)) return cb(new Error("client went away"));
            const afterData = faultAt("afterData");
            if (afterData) return cb(afterData);
            const to = session.envelope.rcptTo.map((r) => r.address);
            const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
            if (this.#parse) {
              const parsed = await simpleParser(raw);
              const header = (name: string) => parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line.replace(/^[^:]+:\s*/, "").replace(/\r?\n\s+/g, " ");
              this.messages.push({ from, to, raw, parsed, header, secure: session.secure });
            }
            this.count++;
            cb();
            for (const w of this.#waiters.splice(0)) w();
          };
          if (this.delayMs > 0) setTimeout(finish, this.delayMs);
          else void finish();
        });
      },
    });
    server.on("error", () => {});
    // "drop" closes a connection as soon as it is accepted; "silent" ones are kept to be closed by stop().
    server.server.prependListener("connection", (socket: import("node:net").Socket) => {
      if (this.fault?.stage === "drop") {
        this.sessions++;
        socket.destroy();
      } else if (this.fault?.stage === "silent") {
        this.#silent.add(socket);
        socket.once("close", () => this.#silent.delete(socket));
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.server.address() as { port: number }).port;
    this.#server = server;
    return this;
  }

  /** Stops listening and drops connections; `start()` listens again on the same port. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#silent) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Sets (or clears) `fault` and closes every open session, so that the next ones meet it from their start. */
  async misbehave(fault: SmtpFault | undefined): Promise<void> {
    this.fault = fault;
    const connections = (this.#server as unknown as { connections?: Set<{ close(): void }> } | undefined)?.connections;
    for (const c of connections ?? []) c.close();
    for (const s of this.#silent) s.destroy();
    // Clients notice the closed sessions on their next turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  to(address: string): ReceivedMail[] {
    return this.messages.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()));
  }

  /** Resolves once `n` messages have arrived (fails after `timeoutMs`). */
  async waitForCount(n: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count < n) {
      if (Date.now() > deadline) throw new Error(`SMTP sink: ${this.count} of ${n} messages after ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 100);
        this.#waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  }
}

/** As a child process (the benchmark): count messages, report `{port}` then `{count}` over IPC. */
if (import.meta.main) {
  const sink = await new SmtpSink({ parse: false }).start();
  process.send?.({ port: sink.port });
  let reported = 0;
  setInterval(() => {
    if (sink.count !== reported) process.send?.({ count: (reported = sink.count) });
  }, 50);
  process.on("disconnect", () => process.exit(0));
}
