import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { processAlive } from "../process-alive.ts";


/**
 * Runs `fn` while holding a lock shared by every process on this machine: `mkdir` is atomic, and a
 * lock left by a process that died is taken over. Waits (polling) while another process holds it.
 */
export async function withDirLock<T>(lockDir: string, fn: () => Promise<T>, timeoutMs = 60 * 60_000): Promise<T> {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  const owner = path.join(lockDir, "pid");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(owner, String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let pid = NaN;
      try {
        pid = Number(fs.readFileSync(owner, "utf8"));
      } catch {
        // The holder has made the directory but not written its pid yet.
      }
      if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${lockDir}`);
      await sleep(50);
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
