import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processAlive } from "./process-alive.ts";


/** A lock directory without a pid this long after it was made belongs to a process that died making it. */
const ABANDONED_AFTER_MS = 10_000;

function lockAgeMs(lockDir: string): number {
  try {
    return Date.now() - fs.statSync(lockDir).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Runs `fn` while holding a lock shared by every process on this machine: `mkdir` is atomic, and a
 * lock left by a process that died is taken over. Waits (polling) while another process holds it.
 */
export async function withDirLock<T>(lockDir: string, fn: () => Promise<T>, timeoutMs = 60 * 60_000, onWait?: (holderPid: number) => void): Promise<T> {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  const owner = path.join(lockDir, "pid");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let pid = NaN;
      try {
        pid = Number(fs.readFileSync(owner, "utf8"));
      } catch {
        // The holder has made the directory but not written its pid yet, or died in between.
      }
      const abandoned = !(Number.isInteger(pid) && pid > 0) && lockAgeMs(lockDir) > ABANDONED_AFTER_MS;
      if (abandoned || (Number.isInteger(pid) && pid > 0 && !processAlive(pid))) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${lockDir}`);
      if (onWait) {
        onWait(pid);
        onWait = undefined; // said once
      }
      await sleep(50);
      continue;
    }
    try {
      fs.writeFileSync(owner, String(process.pid));
      break;
    } catch (e) {
      // E.g. ENOSPC: a lock nobody can identify would block every later publish.
      fs.rmSync(lockDir, { recursive: true, force: true });
      throw e;
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** An in-process queue in front of the file lock, so one process's publishes run one after another. */
const queues = new Map<string, Promise<unknown>>();
export function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  queues.set(key, next.catch(() => undefined));
  return next;
}
