import os from "node:os";
import { parentPort, Worker, workerData } from "node:worker_threads";
import { composeTown } from "../../core/edition/compose-town.ts";
import type { ComposedTown, TownSnapshot } from "../../core/edition/town-snapshot.ts";

// Composing is pure (src/core/edition/compose-town.ts): a snapshot in, an edition out. A morning of
// many towns composes its batches in worker threads, one per spare core, while the main thread
// gathers the next batches and stores the last ones.

/** A town's composition, or why it failed (an error does not cross threads as itself). */
export type Composition = { ok: true; composed: ComposedTown } | { ok: false; error: string };

export interface ComposePool {
  compose(snapshots: TownSnapshot[], now: Date): Promise<Composition[]>;
  close(): Promise<void>;
}

interface Job { id: number; snapshots: TownSnapshot[]; now: string }

/** Worker threads a morning of `towns` towns composes in: one per core beyond the main thread's, none for a small morning. */
export function composeWorkerCount(towns: number, minTowns: number): number {
  return towns < minTowns ? 0 : Math.max(0, os.availableParallelism() - 1);
}

function composeAll(snapshots: TownSnapshot[], now: Date): Composition[] {
  return snapshots.map((s): Composition => {
    try {
      return { ok: true, composed: composeTown(s, now) };
    } catch (err) {
      return { ok: false, error: (err as Error).stack ?? String(err) };
    }
  });
}

/** `count` worker threads; each batch goes to the one with the fewest batches in hand. */
export function composeWorkers(count: number): ComposePool {
  const workers = Array.from({ length: count }, () => {
    // Composing allocates fast and keeps nothing between batches: a small heap makes V8 collect often
    // instead of growing (the morning's peak memory is a goal of its own).
    const worker = new Worker(new URL(import.meta.url), { workerData: { composeWorker: true }, resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 96 } });
    const waiting = new Map<number, { resolve: (r: Composition[]) => void; reject: (e: Error) => void }>();
    worker.on("message", ({ id, results }: { id: number; results: Composition[] }) => {
      waiting.get(id)?.resolve(results);
      waiting.delete(id);
    });
    worker.on("error", (err) => {
      for (const w of waiting.values()) w.reject(err);
      waiting.clear();
    });
    return { worker, waiting };
  });
  let next = 0;
  return {
    compose(snapshots, now) {
      const w = workers.reduce((a, b) => (b.waiting.size < a.waiting.size ? b : a));
      const id = next++;
      return new Promise((resolve, reject) => {
        w.waiting.set(id, { resolve, reject });
        w.worker.postMessage({ id, snapshots, now: now.toISOString() } satisfies Job);
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}

if (parentPort && (workerData as { composeWorker?: boolean } | undefined)?.composeWorker) {
  const port = parentPort;
  port.on("message", ({ id, snapshots, now }: Job) => port.postMessage({ id, results: composeAll(snapshots, new Date(now)) }));
}
