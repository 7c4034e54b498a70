/**
 * `node scripts/bench/mcp-profile.ts [--seconds=5] [--prof-dir=DIR]`: the server as a child process
 * under `node --cpu-prof`, loaded with `tools/call get_city` (the bench:api MCP path) by autocannon,
 * then stopped so it writes its profile; prints req/s and the top self-time functions of the profile.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { PROJECT_ROOT } from "../../src/config/paths.ts";
import { subscribe } from "../../src/services/readers/subscribe.ts";
import { createContext } from "../../src/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { databaseFile } from "../../src/store/db.ts";
import { templateDb } from "./template-db.ts";

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const seconds = Number(arg("seconds", "5"));
const profDir = arg("prof-dir", fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-mcp-prof-")));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-mcp-prof-data-"));
fs.copyFileSync(templateDb(), databaseFile(dataDir));
const env = { LOG_LEVEL: "warn", DATA_DIR: dataDir, HOST: "127.0.0.1", MORNING_SCHEDULE: "off", MAIL_SENDER: "off", OPEN_METEO_URL: "http://127.0.0.1:9", CENSUS_API_URL: "http://127.0.0.1:9" };
{
  const ctx = createContext(loadConfig({ ...process.env, ...env, PORT: "0" }));
  await subscribe(ctx, { email: "ada@example.org", city: "Denver", state: "Colorado", slug: "denver-colorado" });
  ctx.db.close();
}
const port = await new Promise<number>((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const p = (probe.address() as net.AddressInfo).port;
    probe.close(() => resolve(p));
  });
});
const server = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profDir}`, path.join(PROJECT_ROOT, "api/server.ts")], { env: { ...process.env, ...env, PORT: String(port) }, stdio: "inherit" });
const url = `http://127.0.0.1:${port}`;
for (let i = 0; !(await fetch(`${url}/api/cities`).then((r) => r.ok, () => false)); i++) {
  if (i > 300) throw new Error("server did not start");
  await new Promise((r) => setTimeout(r, 100));
}
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_city", arguments: { slug: "denver-colorado" } } });
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
// The HTTP read first, unprofiled (the profiler starts with the MCP load), for the same-run ratio.
const http = await autocannon({ url: `${url}/api/city/denver-colorado`, connections: 50, duration: seconds });
await fetch(`${url}/mcp`, { method: "POST", headers, body });
const mcpStarted = performance.now();
const r = await autocannon({ url: `${url}/mcp`, method: "POST", headers, body, connections: 50, duration: seconds });
console.log(`MCP tools/call get_city: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}; GET /api/city: ${Math.round(http.requests.average)} req/s; ratio ${(r.requests.average / http.requests.average).toFixed(2)}x`);
await new Promise<void>((resolve) => {
  server.once("exit", () => resolve());
  server.kill("SIGTERM");
});
const file = fs.readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(profDir, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
const window = (performance.now() - mcpStarted) * 1000; // µs: the MCP load and the stop after it
const prof = JSON.parse(fs.readFileSync(file, "utf8")) as { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples: number[]; timeDeltas: number[] };
// Only the samples of the MCP load: the profile's last `window` microseconds.
const times: number[] = [];
prof.timeDeltas.reduce((t, d, i) => (times[i] = t + d), 0);
const end = times.at(-1) ?? 0;
prof.samples = prof.samples.filter((_, i) => times[i] >= end - window);
const self = new Map<number, number>();
for (const s of prof.samples) self.set(s, (self.get(s) ?? 0) + 1);
const byFn = new Map<string, number>();
for (const n of prof.nodes) {
  const key = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*node_modules\//, "").replace(PROJECT_ROOT, "")}:${n.callFrame.lineNumber}`;
  byFn.set(key, (byFn.get(key) ?? 0) + (self.get(n.id) ?? 0));
}
const total = prof.samples.length;
console.log(`profile ${file}: top self time`);
for (const [k, v] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
fs.rmSync(dataDir, { recursive: true, force: true });
