import http from "node:http";
import type { AddressInfo } from "node:net";
import { createContext } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config/load.ts";
import type { AppContext } from "../src/services/platform/context.ts";
import { startBackupSchedule } from "../src/services/platform/backups.ts";
import { replayPaymentsAfterRestore } from "../src/services/commerce/payment-replay.ts";
import { importDirectoryInBackground } from "../src/services/directory/import-on-start.ts";
import { startDirectoryChecks } from "../src/services/directory/verify.ts";
import { startMailSender } from "../src/services/mail/sender.ts";
import { startFediverseWorker } from "../src/services/fediverse/worker.ts";
import { startMorningSchedule } from "../src/services/morning/schedule.ts";
import { startCommerceSweep } from "../src/services/commerce/sweep-schedule.ts";
import { refreshSearchSets } from "../src/services/site/search.ts";
import { recordRunningServer } from "../src/services/platform/running-servers.ts";
import { purchasesOffReason } from "../src/integrations/payments/index.ts";
import { liveBuild, siteDirs } from "../src/publish/site-dir.ts";
import { createRequestListener } from "./app.ts";
import { answerClientError } from "./http/client-error.ts";
import { startConfiguredMetrics } from "./http/metrics-server.ts";

export interface RunningServer {
  url: string;
  /** `/metrics`' address when METRICS_PORT is set (a server of its own, on METRICS_HOST). */
  metricsUrl?: string;
  ctx: AppContext;
  /**
   * Stops gracefully: no new connections, in-flight requests finish (cut after `SHUTDOWN_TIMEOUT_MS`),
   * then the morning run and the mail sender finish their current step, and the database closes.
   */
  close: () => Promise<void>;
}

/** Stops accepting, lets in-flight requests finish within `graceMs`, then cuts what is left. */
function drain(server: http.Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    // Keep-alive connections that finish their request go idle: close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    server.close(() => {
      clearTimeout(deadline);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** What a person starting the server must know, a line each. */
function startUpWarnings(ctx: AppContext, config: Config): void {
  // A deployment without a payment provider says so once, rather than silently taking unpaid orders.
  const purchasesOff = purchasesOffReason(config);
  if (purchasesOff) ctx.log.warn(`purchases are off: ${purchasesOff}`);
  // `npm start` rebuilds a site built for another origin first (scripts/build-site.ts --if-missing);
  // started any other way, say so rather than hand out links to where nothing listens.
  const built = liveBuild(siteDirs(config.dataDir))?.baseUrl;
  if (built && config.port !== 0 && built !== config.baseUrl) ctx.log.warn({ builtFor: built, baseUrl: config.baseUrl }, "the site was built for another BASE_URL: its pages link there until `npm run build` (or the next morning's publish) rebuilds it");
}

export async function startServer(config: Config = loadConfig()): Promise<RunningServer> {
  const ctx = createContext(config);
  const listener = createRequestListener(ctx);
  // Once shutdown begins, every answer says `Connection: close`: a keep-alive client then opens a
  // new connection (to another instance) instead of sending its next request on one about to close.
  let shuttingDown = false;
  const inFlight = new Set<http.ServerResponse>();
  const closeAfter = (res: http.ServerResponse) => {
    if (!res.headersSent) res.setHeader("Connection", "close");
  };
  const server = http.createServer({
    headersTimeout: config.http.headersTimeoutMs,
    requestTimeout: config.http.requestTimeoutMs,
    // Node checks the two timeouts above on this period; keep it finer than the shorter one.
    connectionsCheckingInterval: Math.min(1000, config.http.headersTimeoutMs / 2),
  }, (req, res) => {
    if (shuttingDown) closeAfter(res);
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
    return listener(req, res);
  });
  server.keepAliveTimeout = 5000;
  // Requests the parser refuses: problem+json under /api, a plain page elsewhere (not Node's empty 400/431/408).
  server.on("clientError", (err, socket) => answerClientError(ctx, err, socket));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      // A deep accept queue (Node's default is 511): a burst of connections waits to be accepted
      // while the event loop is busy instead of being dropped (the kernel caps it at somaxconn).
      server.listen({ port: config.port, host: config.host, backlog: 4096 }, () => resolve());
    });
  } catch (err) {
    ctx.db.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  ctx.log.info({ url, dataDir: config.dataDir }, "citydaily listening");
  const metrics = await startConfiguredMetrics(ctx).catch((err: unknown) => (server.close(), ctx.db.close(), Promise.reject(err)));
  startUpWarnings(ctx, config);
  // DATA_DIR/servers/<pid>.json: a morning dated ahead of the clock, and the demo, know this site is live.
  const unrecord = recordRunningServer(config.dataDir, { url, baseUrl: config.port === 0 && !config.baseUrlFromEnv ? url : config.baseUrl, startedAt: new Date().toISOString() });
  const jobs = startBackgroundJobs(ctx, config);
  let closing: Promise<void> | undefined;
  return {
    url,
    metricsUrl: metrics?.url,
    ctx,
    close: () => (closing ??= (async () => {
      shuttingDown = true;
      for (const res of inFlight) closeAfter(res);
      // The background jobs stop while requests drain, not after (startBackgroundJobs).
      const stopped = Promise.all([jobs.stop(), metrics?.close()]);
      await drain(server, config.http.shutdownTimeoutMs);
      await stopped;
      await ctx.mailer.close();
      ctx.db.close();
      unrecord();
    })()),
  };
}

/**
 * What the server runs beside its requests: each job started here is stopped by the returned
 * `stop` while requests drain, so the whole shutdown stays within SHUTDOWN_TIMEOUT_MS (the morning
 * run stops between cities, aborting fetches in flight; the sender starts no new message and cuts
 * those still unanswered after its grace).
 */
function startBackgroundJobs(ctx: AppContext, config: Config): { stop: () => Promise<unknown> } {
  // An archive stored before the search's kept sets existed (or by another process) catches up.
  const stopSearchSets = new AbortController();
  const searchSets = refreshSearchSets(ctx, { signal: stopSearchSets.signal }).catch((err) => ctx.log.error({ err }, "refreshing the search sets failed"));
  // The morning pipeline every 15 minutes; `npm start` (this file as entry) also runs it right away.
  const morning = config.morningSchedule ? startMorningSchedule(ctx, { runAtStart: import.meta.main }) : undefined;
  // Each minute (COMMERCE_SWEEP_SECONDS), what time changed in commerce is stored and its towns re-rendered (reads never write: they compare with now).
  const commerceSweep = config.commerceSweepSeconds > 0 ? startCommerceSweep(ctx, config.commerceSweepSeconds * 1000) : undefined;
  // `npm start`: the tide predictor loads in its worker now, not on the first /api/weather of a coastal town.
  if (import.meta.main) ctx.hazards.tides.warm();
  // Delivers the email outbox every MAIL_SEND_INTERVAL_MS; MAIL_SENDER=off leaves it to `npm run mail:send`.
  const mailSender = config.mail.senderEnabled ? startMailSender(ctx) : undefined;
  // Posts each morning's editions to the towns' fediverse followers and drains their deliveries; FEDERATION_SENDER=off leaves them queued.
  const fediverse = config.federation.senderEnabled ? startFediverseWorker(ctx) : undefined;
  // BACKUP_TARGET: a checked copy of the database uploaded every BACKUP_INTERVAL_SECONDS.
  const backups = config.backup.target ? startBackupSchedule(config, ctx.log) : undefined;
  // The town directory's candidates, a few sites an hour (DIRECTORY_CHECKS_PER_HOUR; 0 turns it off).
  const directoryChecks = startDirectoryChecks(ctx);
  // Started on a database restored from the replica: the payments Stripe reported since its point.
  const paymentReplay = replayPaymentsAfterRestore(ctx);
  // The town directory, when its files changed (a first start): in a worker thread while the site answers.
  const directoryImport = importDirectoryInBackground(ctx);
  return {
    stop: () => Promise.all([
      directoryImport?.stop(config.http.shutdownTimeoutMs),
      morning?.stop(),
      commerceSweep?.stop(),
      backups?.stop(),
      directoryChecks?.stop(),
      paymentReplay,
      (stopSearchSets.abort(), searchSets),
      mailSender?.stop(Math.min(5000, config.http.shutdownTimeoutMs)),
      fediverse?.stop(Math.min(5000, config.http.shutdownTimeoutMs)),
    ]),
  };
}

/** The one line a person starting a second server on a busy port needs, instead of a stack. */
export function listenFailure(err: unknown, config: Pick<Config, "host" | "port">): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") return `citydaily: port ${config.port} on ${config.host} is already in use (another citydaily server?). Stop it, or start this one on another port: PORT=${config.port + 1} npm start`;
  if (code === "EACCES") return `citydaily: not allowed to listen on port ${config.port} on ${config.host}. Choose a port above 1023: PORT=4321 npm start`;
  if (code === "EADDRNOTAVAIL") return `citydaily: ${config.host} is not an address of this machine. Set HOST to one (HOST=127.0.0.1 npm start)`;
  return undefined;
}

if (import.meta.main) {
  const config = loadConfig();
  const running = await startServer(config).catch((err: unknown) => {
    const line = listenFailure(err, config);
    if (!line) throw err;
    console.error(line);
    process.exit(1);
  });
  const stop = async (signal: string) => {
    running.ctx.log.info({ signal }, "shutting down");
    await running.close();
    running.ctx.log.info("stopped");
    process.exit(0);
  };
  // `on`, not `once`: a second signal (systemd signals the whole group, `npm start` forwards its own)
  // joins the shutdown under way instead of killing the process mid-drain; it is bounded anyway.
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
