import { execFile, spawnSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createRequestListener } from "../../api/app.ts";
import { createContext } from "../../src/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { createLogger } from "../../src/lib/log.ts";
import { baseUrlForSite, currentGeneration, siteDirs } from "../../src/publish/site-dir.ts";
import { cacheControlOf } from "../../src/publish/file-headers.ts";
import { buildSite } from "../../src/services/site/publish.ts";
import { addSubscriber } from "../helpers/seed.ts";
import { freshDataDir, startTestServer, type TestServer } from "../helpers/server.ts";

// What a newcomer sees in their first hour: one line for a busy port, one line per request, one line
// per weather outage, links that follow the address the site is served on, a first start that answers
// while the town directory imports, a demo that knows a server runs, and a morning dated ahead of the
// clock that keeps off the live site.

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
const dataDir = () => { const d = freshDataDir(); dirs.push(d); return d; };

/** Runs a script of the project with this environment (no inherited BASE_URL). */
function run(script: string, args: string[], env: Record<string, string>) {
  const { BASE_URL: _unset, ...inherited } = process.env;
  return spawnSync(process.execPath, [path.join(PROJECT_ROOT, script), ...args], {
    env: { ...inherited, LOG_LEVEL: "warn", MORNING_SCHEDULE: "off", MAIL_SENDER: "off", ...env }, encoding: "utf8", timeout: 120_000,
  });
}

/** The same as a process this one waits for without blocking (a test server in this process answers meanwhile). */
async function runAside(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { BASE_URL: _unset, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(PROJECT_ROOT, script), ...args], {
      cwd: PROJECT_ROOT, env: { ...inherited, LOG_LEVEL: "silent", MORNING_SCHEDULE: "off", MAIL_SENDER: "off", ...env }, timeout: 180_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw err;
    return { code: e.code, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** The lines a logger wrote, as a person at a terminal sees them. */
function terminal() {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); done(); } });
  return { log: createLogger("info", { pretty: true, destination: stream }), lines: () => chunks.join("").split("\n").filter(Boolean) };
}

/** The real app behind a real HTTP server, logging to `log`. */
async function appServer(env: Record<string, string>, log: ReturnType<typeof createLogger>) {
  const ctx = createContext(loadConfig({ LOG_LEVEL: "info", DATA_DIR: dataDir(), MORNING_SCHEDULE: "off", MAIL_SENDER: "off", ...env }), log);
  for (const slug of ["denver-colorado", "boulder-colorado", "aurora-colorado"]) addSubscriber(ctx.db, slug, `reader@${slug}.example.org`);
  const server = http.createServer(createRequestListener(ctx));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => { ctx.db.close(); resolve(); })) };
}

describe("a second server on a busy port", () => {
  it("prints one line saying what to do, and no stack", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "api/server.ts")], {
        env: { ...process.env, BASE_URL: "", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir(), LOG_LEVEL: "warn", MORNING_SCHEDULE: "off", MAIL_SENDER: "off" },
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(1);
      const lines = out.split("\n").filter(Boolean);
      expect(lines).toEqual([`citydaily: port ${port} on 127.0.0.1 is already in use (another citydaily server?). Stop it, or start this one on another port: PORT=${port + 1} npm start`]);
    } finally {
      busy.close();
    }
  });
});

describe("logs in a terminal", () => {
  it("one line per request, and one per weather outage (no stack, not every request)", async () => {
    const term = terminal();
    // A port nothing listens on any more: the forecast service is "down", as without internet.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    // Every outside source down, as without internet (and nothing leaves this machine).
    const dead = `http://127.0.0.1:${deadPort}`;
    const app = await appServer({ OPEN_METEO_URL: dead, NWS_API_URL: dead, AIR_QUALITY_API_URL: dead }, term.log);
    try {
      expect((await fetch(`${app.url}/api/cities`)).status).toBe(200);
      for (const slug of ["denver-colorado", "boulder-colorado", "aurora-colorado"]) {
        const res = await fetch(`${app.url}/api/weather/${slug}`);
        expect(((await res.json()) as { code: string }).code).toBe("weather_unavailable");
      }
    } finally {
      await app.close();
    }
    const lines = term.lines();
    const requests = lines.filter((l) => / INFO: (GET|POST) \//.test(l));
    expect(requests).toHaveLength(4);
    expect(requests[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/cities 200 [\d.]+ ms$/);
    const weather = lines.filter((l) => /live weather/i.test(l) && /WARN/.test(l));
    expect(weather).toHaveLength(1);
    const alerts = lines.filter((l) => /weather alerts/i.test(l) && /WARN/.test(l));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(/weather alerts unavailable .*reason="NWS could not be reached \(ECONNREFUSED\)" key=\d+ failures=1$/);
    expect(weather[0]).toMatch(/live weather unavailable .*kind=network reason="Open-Meteo could not be reached \(ECONNREFUSED\)" slug=denver-colorado failures=1$/);
    // Every line is an event: no stack frames, no indented fields.
    expect(lines.filter((l) => !l.startsWith("["))).toEqual([]);
  });
});

describe("a site built for one base URL", () => {
  it("is rebuilt for another by `npm start`'s build step, and the admin CLI and morning never mail links to the old one", async () => {
    const dir = dataDir();
    const ctx = createContext(loadConfig({ LOG_LEVEL: "silent", DATA_DIR: dir, BASE_URL: "http://127.0.0.1:4321", MORNING_SCHEDULE: "off", MAIL_SENDER: "off" }));
    await buildSite(ctx);
    ctx.db.close();
    const llms = () => fs.readFileSync(path.join(currentGeneration(siteDirs(dir))!, "llms.txt"), "utf8");
    expect(llms()).toContain("http://127.0.0.1:4321/");

    // Lighthouse's two audits: the place finder's modules minified, loaded under hashed names served immutable.
    const home = fs.readFileSync(path.join(currentGeneration(siteDirs(dir))!, "index.html"), "utf8");
    const script = /<script type="module" src="\/(_astro\/place-finder\.[\w-]{10}\.js)"/.exec(home)?.[1];
    expect(script).toBeDefined();
    expect(cacheControlOf(script!)).toBe("public, max-age=31536000, immutable");
    const finder = fs.readFileSync(path.join(siteDirs(dir).archive, script!), "utf8");
    const minisearch = /["']\.\/(minisearch\.[\w-]{10}\.js)["']/.exec(finder)?.[1];
    expect(minisearch).toBeDefined();
    const lib = fs.readFileSync(path.join(siteDirs(dir).archive, "_astro", minisearch!), "utf8");
    const source = fs.readFileSync(path.join(PROJECT_ROOT, "node_modules/minisearch/dist/es/index.js"), "utf8");
    expect(lib.length).toBeLessThan(source.length / 3);
    expect(lib.split("\n").length).toBeLessThan(10);

    // Without BASE_URL, commands that write links take the site's; with another one, they refuse.
    expect(baseUrlForSite(dir, { baseUrl: "http://127.0.0.1:5000", baseUrlFromEnv: false })).toEqual({ baseUrl: "http://127.0.0.1:4321" });
    const refused = run("scripts/admin.ts", ["outbox"], { DATA_DIR: dir, BASE_URL: "http://127.0.0.1:5000" });
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("BASE_URL is http://127.0.0.1:5000 but the site");
    expect(refused.stderr).toContain("was built for http://127.0.0.1:4321");
    expect(run("scripts/admin.ts", ["outbox"], { DATA_DIR: dir, PORT: "5000" }).status).toBe(0);

    // The same site started on another port: the start-up build rebuilds it for the new address.
    const unchanged = run("scripts/build-site.ts", ["--if-missing"], { DATA_DIR: dir, BASE_URL: "http://127.0.0.1:4321" });
    expect(unchanged.status).toBe(0);
    expect(unchanged.stdout).toBe("");
    const rebuilt = run("scripts/build-site.ts", ["--if-missing"], { DATA_DIR: dir, PORT: "5000" });
    expect(rebuilt.status).toBe(0);
    expect(rebuilt.stdout).toContain("the site was built for http://127.0.0.1:4321; rebuilding it for http://127.0.0.1:5000");
    expect(llms()).toContain("http://127.0.0.1:5000/");
    expect(llms()).not.toContain(":4321");
  }, 180_000);
});

describe("the first start", () => {
  it("answers /livez and the home page while the town directory imports in the background, then says it imported", async () => {
    // What `npm start` does on an empty DATA_DIR: the site is built first (prestart), then the server
    // starts with TOWN_DIRECTORY_IMPORT at its default and the shipped datasets (353,000 rows).
    const dir = dataDir();
    const ctx = createContext(loadConfig({ LOG_LEVEL: "silent", DATA_DIR: dir, MORNING_SCHEDULE: "off", MAIL_SENDER: "off" }));
    await buildSite(ctx);
    ctx.db.close();
    const server = await startTestServer({ DATA_DIR: dir, TOWN_DIRECTORY_IMPORT: "start", TOWN_SOURCES_DIR: path.join(PROJECT_ROOT, "content/data/sources") });
    try {
      expect((await server.get("/livez")).status).toBe(200);
      const home = await server.get("/");
      expect(home.status).toBe(200);
      expect(await home.text()).toContain("</html>");
      const check = async () => ((await (await server.get("/readyz")).json()) as { checks: Record<string, Array<{ status: string; output: string }>> }).checks["directory:import"]![0]!;
      const during = await check();
      expect(during.status).toBe("pass");
      expect(during.output).toMatch(/^(checking whether the town directory's files changed|importing the town directory in the background since )/);
      // Meanwhile the import goes on, and ends.
      let done = during;
      while (/^(checking|importing)/.test(done.output)) {
        await new Promise((r) => setTimeout(r, 250));
        done = await check();
      }
      expect(done).toMatchObject({ status: "pass", output: expect.stringMatching(/^imported [\d,]+ candidates in [\d.]+ s at /) });
      const imported = Number(/^imported ([\d,]+)/.exec(done.output)![1]!.replaceAll(",", ""));
      expect(imported).toBeGreaterThan(300_000);
      expect(server.ctx.db.prepare("SELECT count(*) FROM town_source_candidates").pluck().get()).toBe(imported);
    } finally {
      await server.close();
    }
  }, 400_000);
});

describe("npm run demo", () => {
  it("with a server serving its DATA_DIR, says to open it and that it shows the new editions; without one, to start it", async () => {
    const server = await startTestServer({ MAIL_SENDER: "off" });
    dirs.push(server.dataDir);
    const env = { DATA_DIR: server.dataDir, NOW: "2026-11-22T18:00:00Z" };
    try {
      const demo = await runAside("scripts/demo.ts", [], env);
      expect(demo.code).toBe(0);
      expect(demo.stdout).toContain(`The server at ${server.url} (pid ${process.pid}) already serves ${server.dataDir}/ and shows the new editions. Open:`);
      expect(demo.stdout).not.toContain("npm start");
      expect(demo.stdout).toContain(`${server.url}/new-york-new-york/2026-11-22 `);
      expect((await server.get("/new-york-new-york/2026-11-22")).status).toBe(200);
    } finally {
      await server.close();
    }
    const again = await runAside("scripts/demo.ts", [], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Now run `npm start` and open:");
  }, 300_000);
});

describe("a morning dated ahead of the clock", () => {
  let server: TestServer | undefined;
  afterAll(async () => { await server?.close(); });

  it("refuses in one line to publish into the site a running server serves, and runs with --allow-future or once no server serves it", async () => {
    server = await startTestServer({ MAIL_SENDER: "off" });
    dirs.push(server.dataDir);
    addSubscriber(server.ctx.db, "denver-colorado", "ahead@example.org");
    // Days ahead of the real clock, at 18:00 UTC: 11:00 in Denver, past its publication hour.
    const ahead = (days: number) => new Date(Math.floor(Date.now() / 86_400_000 + days) * 86_400_000 + 18 * 3_600_000).toISOString();
    const editions = () => server!.ctx.db.prepare("SELECT date FROM editions ORDER BY date").pluck().all();

    const refused = await runAside("scripts/morning.ts", [], { DATA_DIR: server.dataDir, NOW: ahead(5) });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    const lines = refused.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`NOW (${ahead(5)}) is ahead of the clock and the server at ${server.url} (pid ${process.pid}) serves DATA_DIR ${server.dataDir}`);
    expect(lines[0]).toContain("npm run morning -- --allow-future");
    expect(editions()).toEqual([]);

    // Asked for explicitly (as the soak test does), it publishes there.
    const allowed = await runAside("scripts/morning.ts", ["--allow-future"], { DATA_DIR: server.dataDir, NOW: ahead(5) });
    expect(allowed.stderr).toBe("");
    expect(allowed.stdout).toMatch(/: 1 cities, 1 due, 1 composed\b/);
    expect(editions()).toEqual([ahead(5).slice(0, 10)]);

    // The server stopped (its record removed), or gone without removing it: nothing live to keep off.
    await server.close();
    const deadPid = 2 ** 22 + 12345;
    fs.writeFileSync(path.join(server.dataDir, "servers", `${deadPid}.json`), JSON.stringify({ pid: deadPid, url: "http://127.0.0.1:9", baseUrl: "http://127.0.0.1:9", startedAt: new Date().toISOString() }));
    const alone = await runAside("scripts/morning.ts", [], { DATA_DIR: server.dataDir, NOW: ahead(6) });
    expect(alone.stderr).toBe("");
    expect(alone.stdout).toMatch(/: 1 cities, 1 due, 1 composed\b/);
    expect(fs.readdirSync(path.join(server.dataDir, "servers"))).toEqual([]);
    server = undefined;
  }, 300_000);
});
