import path from "node:path";
import { isMainThread, parentPort, workerData, Worker } from "node:worker_threads";
import { PROJECT_ROOT } from "../config/paths.ts";
import { createSiteData, type SiteData } from "../site/views.ts";
import { openDatabase, type DB } from "../store/db.ts";
import { editionKeysAfter, editionKeysByIds, type EditionKey } from "../store/morning/editions.ts";
import { PRECOMPRESS_FROM_BYTES } from "./precompressed.ts";
import { SyncFileWriter } from "./site-dir.ts";
import { loadRenderer } from "./site-renderer.ts";
import { cityFiles } from "./text-outputs.ts";

/**
 * One render job: the dated edition pages (all of them, or some ids) go to the archive, the other
 * pages to the generation being built. It runs in a worker thread with its own database connection,
 * so the publisher's main thread writes the text outputs at the same time (two cores, both busy).
 */
export interface RenderJob {
  dbFile: string;
  baseUrl: string;
  placeFinder: boolean;
  /** The place finder's hashed module, when this build has one. */
  placeFinderScript?: string;
  /** The app's clock when the job was made (ISO), so a pinned NOW pins the pages too. */
  now: string;
  archive: string;
  generation: string;
  /** "all" on a full rebuild, else the new editions. */
  editions: "all" | number[];
  /** Other site paths ("/", "/cities", "/{slug}", "/states/{state}", ...). */
  pages: string[];
  /** This worker's share of "all": the editions whose id modulo `count` is `index`. */
  shard?: { index: number; count: number };
  /**
   * Pages several renderers share, after their own work: each takes the next one from `cursor` (an
   * Int32 counter in shared memory), so whichever is free renders it. The morning's worker and main
   * thread share the city pages this way.
   */
  shared?: { pages: string[]; cursor: SharedArrayBuffer };
  /**
   * The shared pages are city pages, and whoever renders one writes the city's twin and feed beside it
   * (a morning): from the view the page was rendered from, read once, on whichever thread is free.
   * `keepFeedItemsFrom` as in `cityFiles`.
   */
  cityFiles?: { keepFeedItemsFrom?: string };
  /** Where replaced archive pages are kept until the publish is done (`SyncFileWriter`). */
  retireTo?: string;
}

/** Site path -> file (`/` is index.html, every page is `{path}.html`). */
export const pageFile = (dir: string, sitePath: string) => path.join(dir, sitePath === "/" ? "index.html" : `${sitePath.slice(1)}.html`);

const BATCH = 2000;

export interface RenderResult {
  written: number;
  /** Pages of the generation from PRECOMPRESS_FROM_BYTES (relative paths), for the compressed copies. */
  large: string[];
}

/** Runs the job on this thread: with its own connection and read model, or with the caller's (made with the job's options). */
export async function runRenderJob(job: RenderJob, caller?: { db: DB; site: SiteData }): Promise<RenderResult> {
  const db = caller?.db ?? openDatabase(job.dbFile);
  try {
    const renderer = await loadRenderer();
    const site = caller?.site ?? createSiteData(db, job.baseUrl, { placeFinder: job.placeFinder, placeFinderScript: job.placeFinderScript, now: () => new Date(job.now) });
    let written = 0;
    const large: string[] = [];
    const archive = new SyncFileWriter({ atomic: true, retireTo: job.retireTo }); // readers may already see the archive
    const generation = new SyncFileWriter({ atomic: false }); // nobody sees it before the swap
    const renderEdition = async (k: EditionKey) => {
      const html = await renderer.renderBytes(`/${k.slug}/${k.date}`, site);
      if (html === undefined) return;
      archive.write(pageFile(job.archive, `/${k.slug}/${k.date}`), html);
      written++;
    };
    if (job.editions === "all") {
      for (let last = 0; ;) {
        const batch = editionKeysAfter(db, last, BATCH);
        if (batch.length === 0) break;
        for (const k of batch) if (!job.shard || k.id % job.shard.count === job.shard.index) await renderEdition(k);
        last = batch.at(-1)!.id;
      }
    } else {
      for (const k of editionKeysByIds(db, job.editions)) await renderEdition(k);
    }
    let slice = performance.now();
    const toGeneration = (file: string, body: string | Buffer) => {
      generation.write(file, body);
      if (Buffer.byteLength(body) >= PRECOMPRESS_FROM_BYTES) large.push(path.relative(job.generation, file).split(path.sep).join("/"));
      written++;
    };
    const renderPage = async (p: string) => {
      // On the main thread (a server publishing in-process) requests are answered between pages.
      if (isMainThread && performance.now() - slice > 8) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
      const html = await renderer.renderBytes(p, site);
      if (html === undefined) return false;
      toGeneration(pageFile(job.generation, p), html);
      return true;
    };
    for (const p of job.pages) await renderPage(p);
    if (job.shared) {
      const cursor = new Int32Array(job.shared.cursor);
      const now = new Date(job.now);
      for (let i = Atomics.add(cursor, 0, 1); i < job.shared.pages.length; i = Atomics.add(cursor, 0, 1)) {
        const p = job.shared.pages[i];
        if (!(await renderPage(p)) || !job.cityFiles) continue;
        for (const [rel, body] of cityFiles(db, site, p.slice(1), now, job.cityFiles.keepFeedItemsFrom)) toGeneration(path.join(job.generation, rel), body);
      }
    }
    return { written, large };
  } finally {
    if (!caller) db.close();
  }
}

/** Runs the job in a worker thread; resolves with the number of pages written and the large ones. */
export function renderInWorker(job: RenderJob): Promise<RenderResult> {
  return new Promise((resolve, reject) => {
    // Rendering allocates fast but keeps little (about 20 MB live): a modest old generation makes V8
    // collect sooner instead of growing the heap. The young generation is 64 MB: at 24 MB the
    // morning's worker spent 13% of its time in scavenges (466 ms), at 64 MB 9% (239 ms), for about
    // 100 MB more peak memory.
    const worker = new Worker(new URL(import.meta.url), {
      workerData: job,
      resourceLimits: { maxYoungGenerationSizeMb: 64, maxOldGenerationSizeMb: 192 },
      // Every publish starts a worker that compiles the same modules (Astro's bundle, the site's own):
      // V8's code cache on disk (Node's compile cache) spares about a quarter of the worker's start. It
      // is kept beside the renderer's build (dist/, the project's own), not in a shared temp directory.
      env: { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(PROJECT_ROOT, "dist/compile-cache") },
    });
    let result: RenderResult | undefined;
    worker.once("message", (r: RenderResult) => (result = r));
    worker.once("error", reject);
    worker.once("exit", (code) => (result !== undefined ? resolve(result) : reject(new Error(`render worker exited with code ${code}`))));
  });
}

if (parentPort && (workerData as RenderJob | undefined)?.dbFile) {
  parentPort.postMessage(await runRenderJob(workerData as RenderJob));
}
