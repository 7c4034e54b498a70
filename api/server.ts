import http from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3";
import { createContext } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config.ts";
import { startMailSender } from "../src/services/mail-sender.ts";
import type { AppContext } from "../src/services/context.ts";
import { startMorningSchedule } from "../src/services/morning-schedule.ts";
import { refreshSearchSets } from "../src/services/search.ts";
import { createApp } from "./app.ts";

export interface RunningServer {
  url: string;
  ctx: AppContext;
  close: () => Promise<void>;
}

export async function startServer(config: Config = loadConfig()): Promise<RunningServer> {
  const ctx = createContext(config);
  const app = createApp(ctx);
  const server = http.createServer(toNodeHandler(app));
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  ctx.log.info({ url, dataDir: config.dataDir }, "citydaily listening");
  // An archive stored before the search's kept sets existed (or by another process) catches up.
  const stopSearchSets = new AbortController();
  const searchSets = refreshSearchSets(ctx, { signal: stopSearchSets.signal }).catch((err) => ctx.log.error({ err }, "refreshing the search sets failed"));
  // The morning pipeline every 15 minutes; `npm start` (this file as entry) also runs it right away.
  const morning = config.morningSchedule ? startMorningSchedule(ctx, { runAtStart: import.meta.main }) : undefined;
  // Delivers the email outbox every MAIL_SEND_INTERVAL_MS; MAIL_SENDER=off leaves it to `npm run mail:send`.
  const mailSender = config.mail.senderEnabled ? startMailSender(ctx) : undefined;
  return {
    url,
    ctx,
    close: async () => {
      await morning?.stop();
      stopSearchSets.abort();
      await searchSets;
      await mailSender?.stop();
      await ctx.mailer.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          ctx.db.close();
          resolve();
        });
      });
    },
  };
}

if (import.meta.main) {
  const running = await startServer();
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
