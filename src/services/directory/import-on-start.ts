import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { databaseFile, openDatabase } from "../../store/db.ts";
import type { AppContext, DirectoryImportState } from "../platform/context.ts";
import { importDirectory, type DirectoryImportResult } from "./import.ts";

// The server's start imports the town directory when its files, the places data or the rules changed
// (a first start: 353,000 rows, about 15 s of CPU; docs/sources.md). It runs in a worker thread on a
// connection of its own, so the site answers from the moment it listens: the parsing and matching
// never block the event loop, and the rows are written in transactions of 100 ms each, so a request's
// write (a subscribe, /readyz's probe) waits one of them at most. Its state is /readyz's
// `directory:import` check and a log line when it starts and ends.

/** How long one transaction of the import holds the write lock, and the pause after it, in which the server's writes get it. */
const CHUNK_MS = 100;
const PAUSE_MS = 25;

interface Job { dataDir: string; replicated: boolean; dir: string; now: string; stop: SharedArrayBuffer }
type Report = { kind: "importing" } | { kind: "done"; result: DirectoryImportResult } | { kind: "failed"; error: string } | { kind: "stopped" };

class Stopped extends Error {}

export interface BackgroundImport {
  /** Stops it at its next chunk (the next start imports again), then ends the thread. */
  stop(graceMs: number): Promise<void>;
}

/** Starts the import's thread (TOWN_DIRECTORY_IMPORT=start); its progress goes to `ctx.directoryImport` and the log. */
export function importDirectoryInBackground(ctx: Pick<AppContext, "config" | "log" | "directoryImport">): BackgroundImport | undefined {
  if (!ctx.config.townDirectory.importOnStart) return undefined;
  const set = (status: DirectoryImportState["status"], more: Partial<DirectoryImportState> = {}) => {
    ctx.directoryImport = { status, since: new Date().toISOString(), ...more };
  };
  set("checking");
  const stop = new SharedArrayBuffer(4);
  const job: Job = {
    dataDir: ctx.config.dataDir, replicated: Boolean(ctx.config.replica.target), dir: ctx.config.townDirectory.dir, now: ctx.config.now().toISOString(), stop,
  };
  const fail = (error: string) => {
    set("failed", { error: error.split("\n")[0]! });
    ctx.log.error({ err: error }, "importing the town directory failed; the server runs without changing it (npm run admin -- directory import)");
  };
  const worker = new Worker(new URL(import.meta.url), { workerData: { directoryImport: job } });
  worker.on("message", (report: Report) => {
    if (report.kind === "importing") {
      set("importing");
      ctx.log.info({ dir: job.dir }, "importing the town directory in the background; the site answers meanwhile (/readyz shows its progress)");
    } else if (report.kind === "done") {
      const r = report.result;
      if (!r.imported) return set("unchanged");
      set("imported", { candidates: r.counts?.rows ?? 0, seconds: Math.round(r.ms / 100) / 10 });
      ctx.log.info({ dir: r.dir, candidates: r.counts?.rows, places: r.counts?.placesWithAny, ...r.sync, missing: r.missing, ms: r.ms }, "imported the town directory");
    } else if (report.kind === "stopped") {
      set("stopped");
      ctx.log.info("the town directory's import stopped with the server; the next start imports it again");
    } else fail(report.error);
  });
  worker.on("error", (err) => fail(err.stack ?? String(err)));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    async stop(graceMs) {
      const flag = new Int32Array(stop);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      // Between chunks it stops at once; while parsing (no transaction open) ending the thread loses nothing.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, Math.min(graceMs, 1000))))]);
      clearTimeout(timer);
      await worker.terminate();
      if (ctx.directoryImport.status === "checking" || ctx.directoryImport.status === "importing") set("stopped");
    },
  };
}

/** The thread: one import on its own connection, told back to the server. */
function runImport(job: Job, report: (r: Report) => void): void {
  const stop = new Int32Array(job.stop);
  const db = openDatabase(databaseFile(job.dataDir), { replicated: job.replicated });
  try {
    const result = importDirectory(db, job.dir, {
      now: new Date(job.now),
      onlyIfChanged: true,
      onImporting: () => report({ kind: "importing" }),
      chunks: {
        maxMs: CHUNK_MS,
        // The pause is a wait on the stop flag: a stop ends it at once.
        between: () => {
          if (Atomics.wait(stop, 0, 0, PAUSE_MS) !== "timed-out") throw new Stopped();
        },
      },
    });
    report({ kind: "done", result });
  } catch (err) {
    report(err instanceof Stopped ? { kind: "stopped" } : { kind: "failed", error: (err as Error).stack ?? String(err) });
  } finally {
    db.close();
  }
}

if (!isMainThread && parentPort && (workerData as { directoryImport?: Job } | undefined)?.directoryImport) {
  const port = parentPort;
  runImport((workerData as { directoryImport: Job }).directoryImport, (r) => port.postMessage(r));
}
