import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { PROJECT_ROOT } from "../../src/config/paths.ts";

/** A free TCP port on 127.0.0.1 (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The settings a spawned test server needs: nothing reaches the internet, no background jobs. */
export function quietEnv(port: number, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ""}`, HOME: process.env.HOME ?? "/tmp",
    LOG_LEVEL: "warn", HOST: "127.0.0.1", PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`,
    OPEN_METEO_URL: "http://127.0.0.1:9", CENSUS_API_URL: "http://127.0.0.1:9", NWS_API_URL: "http://127.0.0.1:9", AIR_QUALITY_API_URL: "http://127.0.0.1:9",
    USGS_EARTHQUAKES_URL: "http://127.0.0.1:9", OPENFEMA_API_URL: "http://127.0.0.1:9", LEGISTAR_API_URL: "http://127.0.0.1:9",
    MORNING_SCHEDULE: "off", TOWN_DIRECTORY_IMPORT: "manual", DIRECTORY_CHECKS_PER_HOUR: "0", MAIL_SENDER: "off",
    SHUTDOWN_TIMEOUT_MS: "1000", SUBSCRIBE_RATE_LIMIT: "1000",
    ...extra,
  };
}

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The server as `npm start` runs it: package.json's `prestart` then its `start`, in one shell (npm
 * itself adds nothing but its banner). Resolves once the server answers.
 */
export async function startLikeNpm(env: Record<string, string>, timeoutMs = 90_000): Promise<SpawnedServer> {
  const scripts = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const child = spawn("sh", ["-c", `${scripts.prestart} && exec ${scripts.start}`], { cwd: PROJECT_ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`the server exited before answering:\n${out}`);
    if (Date.now() > deadline) throw new Error(`the server did not answer within ${timeoutMs} ms:\n${out}`);
    const ok = await fetch(`${url}/api/status`).then((r) => r.ok, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, url, output: () => out, exited };
}

/** Every process under `pid` (Linux /proc), deepest last. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const all: number[] = [];
  const walk = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      all.push(c);
      walk(c);
    }
  };
  walk(pid);
  return all;
}

/** The machine is gone: SIGKILL to the start script and everything under it at once (no last sync). */
export async function killHard(server: SpawnedServer): Promise<void> {
  const pids = [server.child.pid!, ...descendants(server.child.pid!)];
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await server.exited;
  // Wait until the grandchildren are reaped too, so nothing writes to DATA_DIR afterwards.
  for (let i = 0; i < 50 && pids.some((p) => alive(p)); i++) await new Promise((r) => setTimeout(r, 100));
}

export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** `npm run restore -- ARGS` with `env`: its exit code and output. */
export function runRestore(env: Record<string, string>, args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [path.join(PROJECT_ROOT, "scripts/restore.ts"), ...args], { cwd: PROJECT_ROOT, env, encoding: "utf8", timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
