import http from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3";
import { loadConfig, PLACES_CSV, type Config } from "../src/config.ts";
import { createLogger, type Logger } from "../src/log.ts";
import { databaseFile, openDatabase } from "../src/store/db.ts";
import { importPlaces } from "../src/store/places-import.ts";
import type { AppContext } from "../src/services/context.ts";
import { createApp } from "./app.ts";

export interface RunningServer {
  url: string;
  ctx: AppContext;
  close: () => Promise<void>;
}

/** Opens the database (migrating and importing places on first start) and builds the context. */
export function createContext(config: Config, log: Logger = createLogger(config.logLevel)): AppContext {
  const db = openDatabase(databaseFile(config.dataDir));
  const started = performance.now();
  const result = importPlaces(db, PLACES_CSV);
  if (result.imported) log.info({ rows: result.rows, ms: Math.round(performance.now() - started) }, "imported places dataset");
  return { db, config, log };
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
  return {
    url,
    ctx,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          ctx.db.close();
          resolve();
        });
      }),
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
