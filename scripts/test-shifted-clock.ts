// Runs the test suite with every process's clock moved: vitest, its workers, the servers and scripts the
// tests spawn, Chromium. No test may depend on the day it runs (dates relative to a pinned NOW, or
// computed from today); this is the check, run by hand (CI runs only `npm test`).
//
//   npm run test:year-ahead                                          # the clock a year ahead
//   node scripts/test-shifted-clock.ts +1095d                        # three years ahead
//   node scripts/test-shifted-clock.ts 2028-02-29T15:00:00Z [files]  # a leap day, as an offset from now
//
// Debian's libfaketime (`apt-get install -y faketime`) does the moving, through LD_PRELOAD, which every
// child process inherits. A day is given as an offset from now rather than libfaketime's "@start",
// which would start each process anew at that instant: a server spawned a minute after vitest would
// be a minute behind it. The monotonic clock moves by the same offset, so timers keep their length
// (FAKETIME_DONT_FAKE_MONOTONIC=1 would make Chromium exit at launch).
//
// What libfaketime cannot move: the times the kernel stamps on files (a file written now looks a year
// old to a process a year ahead; node's statx bypasses libc) and Go programs, which read the clock
// without libc. So the Litestream tests are left out: Litestream is a Go program, and replication's
// health compares the WAL's and the replica's file times with the clock.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const LIBS = ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1"];
const DAY = 86_400_000;
const LEFT_OUT = ["test/integration/replication.test.ts", "test/integration/replication-s3.test.ts"];

const [shift = "+365d", ...vitestArgs] = process.argv.slice(2);
const lib = LIBS.find((f) => fs.existsSync(f));
if (!lib) {
  console.error("libfaketime is missing: apt-get install -y faketime");
  process.exit(1);
}
let faketime = shift;
if (/^\d{4}-\d{2}-\d{2}/.test(shift)) {
  const at = Date.parse(shift);
  if (Number.isNaN(at)) throw new Error(`not a date: ${shift}`);
  const seconds = Math.round((at - Date.now()) / 1000);
  faketime = `${seconds < 0 ? "-" : "+"}${Math.abs(seconds)}`;
} else if (!/^[+-]\d+(\.\d+)?[smhdy]?$/.test(shift)) {
  console.error(`usage: node scripts/test-shifted-clock.ts [+365d | -2h | 2028-02-29T15:00:00Z] [vitest arguments]; got "${shift}"`);
  process.exit(1);
}
const env = { ...process.env, FAKETIME: faketime, LD_PRELOAD: [lib, process.env.LD_PRELOAD].filter(Boolean).join(" ") };

// A preload that failed to load only warns: make sure the clock really moved before trusting a green run.
const probe = spawnSync(process.execPath, ["-e", "process.stdout.write(String(Date.now()))"], { env, encoding: "utf8" });
const moved = Number(probe.stdout) - Date.now();
if (Math.abs(moved) < 60_000) {
  console.error(`the clock did not move (a minute at least) under ${lib} (FAKETIME=${faketime}): ${probe.stderr.trim()}`);
  process.exit(1);
}
console.log(`tests with the clock at ${new Date(Date.now() + moved).toISOString()} (FAKETIME=${faketime}, ${(moved / DAY).toFixed(1)} days), without ${LEFT_OUT.join(" and ")}`);
const run = spawnSync("npx", ["vitest", "run", "--config", "test/vitest.config.ts", ...LEFT_OUT.flatMap((f) => ["--exclude", f]), ...vitestArgs], { env, stdio: "inherit", cwd: path.resolve(import.meta.dirname, "..") });
process.exit(run.status ?? 1);
