// `npm start` (after its `prestart`: the Node check, the restore from the replica, the site build).
// Without REPLICA_URL this process becomes the server itself (execve: same pid, nothing in between).
// With it, the server runs under `litestream replicate -exec`, which ships every commit to the replica
// within REPLICA_SYNC_INTERVAL (1 s), and this process supervises the pair: signals go to Litestream
// (which passes them to the server); Litestream is killed (SIGKILL) when it outlives the server by a
// grace period, because with an unwritable replica Litestream 0.3.13 never finishes its last sync
// and ignores SIGTERM.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../src/config/load.ts";
import { PROJECT_ROOT } from "../src/config/paths.ts";
import { litestreamBinary, writeLitestreamConfig } from "../src/integrations/backup/litestream.ts";
import { databaseFile } from "../src/store/db.ts";

const SERVER = [process.execPath, "--heap-growing-percent=40", "--max-semi-space-size=16", path.join(PROJECT_ROOT, "api/server.ts")];

const config = loadConfig();
if (!config.replica.target) {
  process.execve!(SERVER[0], SERVER, process.env);
}

/** Litestream splits its -exec string as a shell would. */
const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** The pids whose parent is `pid` (Linux /proc; elsewhere none, and the grace timer alone applies). */
function childPids(pid: number): number[] {
  const pids: number[] = [];
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (text) pids.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // gone, or not Linux
  }
  return pids;
}

const configFile = writeLitestreamConfig(config.dataDir, databaseFile(config.dataDir), config.replica);
// Litestream gives its shadow WAL (DATA_DIR/.citydaily.db-litestream) and the replica's files and
// folders the modes of the database and of DATA_DIR, less its umask: under systemd's 0750 or a
// shell's 0755 the replica's folders would be readable by others. Owner only, whatever they are; the
// server Litestream starts inherits the mask (everything it writes is its own).
process.umask(process.umask(0o077) | 0o077);
// Its own process group: a terminal's Ctrl-C reaches this process only, which passes it on once.
const litestream = spawn(litestreamBinary(), ["replicate", "-config", configFile, "-exec", SERVER.map(shellWord).join(" ")], {
  cwd: PROJECT_ROOT, env: process.env, stdio: "inherit", detached: true,
});
// The server's own shutdown takes up to SHUTDOWN_TIMEOUT_MS; Litestream's last sync a second or two.
const graceMs = config.http.shutdownTimeoutMs + 5000;
let killTimer: NodeJS.Timeout | undefined;
const killAfterGrace = (why: string) => {
  killTimer ??= setTimeout(() => {
    console.error(`citydaily: Litestream did not stop within ${graceMs / 1000} s after ${why} (is the replica writable?); killing it`);
    try {
      process.kill(-litestream.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, graceMs);
};
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
  process.on(signal, () => {
    litestream.kill(signal === "SIGHUP" ? "SIGTERM" : signal);
    killAfterGrace(signal);
  });
}
// The server can also end on its own (a crash, an exit): Litestream then makes its last sync and exits.
let sawServer = false;
const watch = setInterval(() => {
  const children = childPids(litestream.pid!);
  if (children.length) sawServer = true;
  else if (sawServer) killAfterGrace("the server exited");
}, 1000);
litestream.once("exit", (code, signal) => {
  clearInterval(watch);
  clearTimeout(killTimer);
  process.exit(code ?? (signal === "SIGKILL" ? 137 : 1));
});
