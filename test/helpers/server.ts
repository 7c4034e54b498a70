import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer, type RunningServer } from "../../api/server.ts";
import { loadConfig } from "../../src/config/load.ts";
import { TEMPLATE_DB } from "../../scripts/bench/template-db.ts";

export interface TestServer extends RunningServer {
  dataDir: string;
  get: (path: string, init?: RequestInit) => Promise<Response>;
  post: (path: string, body: unknown, init?: RequestInit) => Promise<Response>;
  stop: () => Promise<void>;
}

/** A fresh temporary data directory, seeded with the template database (places already imported). */
export function freshDataDir(prefix = "citydaily-test-"): string {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (fs.existsSync(TEMPLATE_DB)) fs.copyFileSync(TEMPLATE_DB, path.join(dataDir, "citydaily.db"));
  return dataDir;
}

/** The real server on 127.0.0.1 with an ephemeral port and its own data directory. */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = env.DATA_DIR ?? freshDataDir();
  const config = loadConfig({
    LOG_LEVEL: "silent", HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir,
    // Nothing reaches the internet: outside services default to a closed local port, and the
    // scheduled morning run stays off unless a test asks for it.
    OPEN_METEO_URL: "http://127.0.0.1:9", CENSUS_API_URL: "http://127.0.0.1:9", MORNING_SCHEDULE: "off", TOWN_DIRECTORY_IMPORT: "manual",
    NWS_API_URL: "http://127.0.0.1:9", AIR_QUALITY_API_URL: "http://127.0.0.1:9",
    // The directory's background checks stay off unless a test asks (LEGISTAR_API_URL goes nowhere too).
    DIRECTORY_CHECKS_PER_HOUR: "0", LEGISTAR_API_URL: "http://127.0.0.1:9",
    USGS_EARTHQUAKES_URL: "http://127.0.0.1:9", OPENFEMA_API_URL: "http://127.0.0.1:9",
    // A test's last requests are done when it stops its server; anything left is cut after a second.
    SHUTDOWN_TIMEOUT_MS: "1000",
    ...env,
  });
  const running = await startServer(config);
  // BASE_URL defaults to the configured port; with port 0 the real one is only known now.
  if (!env.BASE_URL) running.ctx.config.baseUrl = running.url;
  return {
    ...running,
    dataDir,
    get: (p, init) => fetch(running.url + p, init),
    post: (p, body, init) =>
      fetch(running.url + p, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(init?.headers as Record<string, string>) },
        body: typeof body === "string" ? body : JSON.stringify(body),
        ...init,
      }),
    stop: async () => {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
