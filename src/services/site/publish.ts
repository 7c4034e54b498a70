import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { slugify } from "../../contract/slug.ts";
import { createPublishTarget, type TargetResult } from "../../integrations/publish/index.ts";
import { serialised, withDirLock } from "../../lib/dir-lock.ts";
import { patchNextLinks } from "../../publish/next-links.ts";
import { Precompressor } from "../../publish/precompressed.ts";
import { FEED_ITEM_FORMAT } from "../../publish/rss.ts";
import { renderInWorker, runRenderJob, type RenderJob } from "../../publish/render-pages.ts";
import {
  currentGeneration, discardGeneration, linkTree, liveBuild, newGeneration, recordBuild, removeAbandoned, removeRetiredInBackground, siteDirs, swapCurrent, writeAtomic,
  type BuildInfo, type SiteDirs,
} from "../../publish/site-dir.ts";
import { writeSiteExtras } from "../../publish/site-extras.ts";
import { ensureRendererBuilt, rendererClientDir } from "../../publish/site-renderer.ts";
import { writeTextOutputs } from "../../publish/text-outputs.ts";
import { createSiteData, type SiteData } from "../../site/views.ts";
import { databaseFile, type DB } from "../../store/db.ts";
import { editionKeysByIds, editionsAfter, editionsGainingNext } from "../../store/morning/editions.ts";
import type { AppContext } from "../platform/context.ts";

export interface PublishResult {
  pagesWritten: number;
  /** What the configured target (PUBLISH_TARGET) did after the local swap. */
  target: TargetResult;
}

/** Index pages every publish refreshes, and the ones only a full build writes. */
const GLOBAL_PAGES = ["/", "/cities", "/states"];
const FULL_ONLY_PAGES = ["/developers", "/404"];
/**
 * Render workers of a full rebuild (at most one per CPU); the main thread writes the text outputs
 * meanwhile. A morning has one: a second costs more to start and warm up (about 0.3 s of CPU each)
 * than it saves on a morning's 2,000 pages, with the main thread busy beside them.
 */
const FULL_BUILD_WORKERS = 2;

/** The hashed CSS/JS files of the renderer build; old ones stay, since archived pages may name them. */
function publishClientAssets(dirs: SiteDirs): void {
  const client = rendererClientDir();
  const from = client && path.join(client, "_astro");
  if (!from || !fs.existsSync(from)) return;
  for (const name of fs.readdirSync(from)) {
    const to = path.join(dirs.archive, "_astro", name);
    if (!fs.existsSync(to)) writeAtomic(to, fs.readFileSync(path.join(from, name)));
  }
}

/** Renders in a worker (or on this thread), then hands its larger pages to the compressed copies. */
async function renderPages(compressed: Precompressor, generation: string, job: RenderJob, here?: { db: DB; site: SiteData }): Promise<number> {
  const { written, large } = await (here ? runRenderJob(job, here) : renderInWorker(job));
  for (const rel of large) compressed.add(rel, fs.readFileSync(path.join(generation, rel)));
  return written;
}

async function timed<T>(p: Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await p;
  return [value, Math.round(performance.now() - started)];
}

/**
 * One publish at a time per site: in this process (a queue) and across processes (a lock directory).
 * After the local swap, the configured target gets the new site under the same lock; if that fails
 * the publish fails (the morning retries it) and the next publish resumes the upload.
 */
function runLocked(ctx: AppContext, fn: (dirs: SiteDirs) => Promise<number>): Promise<PublishResult> {
  const dirs = siteDirs(ctx.config.dataDir);
  return serialised(dirs.root, () => withDirLock(path.join(dirs.root, ".publish.lock"), async () => {
    // A marker for the length of the local publish: still there at the next one, it says this one
    // was killed or failed, and what it left (temporary files, an unswapped generation) is removed.
    const marker = path.join(dirs.root, ".publishing");
    const interrupted = fs.existsSync(marker);
    const removed = removeAbandoned(dirs, interrupted);
    if (removed.generations || removed.tmpFiles) ctx.log.info({ ...removed, interrupted }, "removed what an earlier publish left behind");
    fs.mkdirSync(dirs.retired, { recursive: true });
    fs.writeFileSync(marker, String(process.pid));
    const pagesWritten = await fn(dirs);
    // The archive files this publish replaced, kept until now (SyncFileWriter's `retireTo`), go in the background.
    removeRetiredInBackground(dirs);
    fs.rmSync(marker, { force: true });
    const target = await createPublishTarget(ctx.config.publishTarget, ctx.log).publish(dirs);
    return { pagesWritten, target };
  }));
}

/**
 * Builds `generation` (the writers hand their larger files to `compressed` as they go), links over
 * from `previous` what the build did not write, waits for the compressed copies, then swaps it in;
 * a failure leaves the live site untouched.
 */
async function publishGeneration(dirs: SiteDirs, info: BuildInfo, generation: string, previous: string | undefined, build: (compressed: Precompressor) => Promise<number>): Promise<number> {
  try {
    const compressed = new Precompressor(dirs);
    const n = await build(compressed);
    if (previous) linkTree(previous, generation);
    recordBuild(generation, info);
    await compressed.finish(generation, previous);
    swapCurrent(dirs, generation);
    return n;
  } catch (e) {
    discardGeneration(generation);
    throw e;
  }
}

/** Full rebuild from the database: every edition page and twin, every index page, then the swap. */
export function buildSite(ctx: AppContext): Promise<PublishResult> {
  return runLocked(ctx, async (dirs) => {
    const started = performance.now();
    await ensureRendererBuilt();
    const generation = newGeneration(dirs);
    const info: BuildInfo = { baseUrl: ctx.config.baseUrl, feedItemFormat: FEED_ITEM_FORMAT };
    return publishGeneration(dirs, info, generation, undefined, async (compressed) => {
      const extras = await writeSiteExtras(ctx.db, generation, dirs.archive, compressed);
      info.placeFinderScript = extras.placeFinderScript;
      publishClientAssets(dirs);
      const site = createSiteData(ctx.db, ctx.config.baseUrl, { placeFinder: extras.placeFinder, placeFinderScript: extras.placeFinderScript, now: () => ctx.config.now() });
      const states = site.cities().states;
      const pages = [
        ...GLOBAL_PAGES, ...FULL_ONLY_PAGES,
        ...states.map((g) => `/states/${g.slug}`),
        ...states.flatMap((g) => g.cities.map((c) => `/${c.slug}`)),
      ];
      // The archive's pages are most of a full build's work: two render workers share them (the
      // main thread writes the text outputs meanwhile), the first also renders the index pages.
      const job: RenderJob = { dbFile: databaseFile(ctx.config.dataDir), baseUrl: ctx.config.baseUrl, now: ctx.config.now().toISOString(), placeFinder: extras.placeFinder, placeFinderScript: extras.placeFinderScript, archive: dirs.archive, generation, editions: "all", pages: [], retireTo: dirs.retired };
      const shards = Math.max(1, Math.min(FULL_BUILD_WORKERS, os.availableParallelism()));
      const [[rendered, renderMs], [textFiles, textMs]] = await Promise.all([
        timed(Promise.all(Array.from({ length: shards }, (_, index) =>
          renderPages(compressed, generation, { ...job, pages: index === 0 ? pages : [], shard: { index, count: shards } })))
          .then((counts) => counts.reduce((a, b) => a + b, 0))),
        // Dated edition twins go straight into the archive, like their pages.
        timed(writeTextOutputs(ctx, { outDir: generation, archiveDir: dirs.archive, editionIds: [], full: true, site, fresh: true, onWrite: (rel, body) => compressed.add(rel, body), retireTo: dirs.retired })),
      ]);
      ctx.log.info({ pages: rendered, renderMs, textFiles, textMs, ms: Math.round(performance.now() - started) }, "site built");
      return rendered + textFiles + extras.files;
    });
  });
}

/**
 * Publishes a morning's new editions: their pages go to the archive; a new generation, hard-linked
 * from the live one, gets fresh copies of the pages they change (their cities, their states, home,
 * /cities) and of the text outputs; then the swap. Cost follows the new editions, not the archive.
 */
export function publishEditions(ctx: AppContext, editionIds: number[]): Promise<PublishResult> {
  const dirs = siteDirs(ctx.config.dataDir);
  if (!currentGeneration(dirs)) return buildSite(ctx);
  // A site built for another origin: every page links there, so a morning rebuilds it whole.
  const built = liveBuild(dirs);
  if (built && built.baseUrl !== ctx.config.baseUrl) {
    ctx.log.warn({ builtFor: built.baseUrl, baseUrl: ctx.config.baseUrl }, "the site was built for another BASE_URL; rebuilding it whole");
    return buildSite(ctx);
  }
  return runLocked(ctx, async (dirs) => {
    const live = currentGeneration(dirs);
    if (!live) throw new Error("the site disappeared while waiting for the publish lock");
    const started = performance.now();
    await ensureRendererBuilt();
    const keys = editionKeysByIds(ctx.db, editionIds);
    const generation = newGeneration(dirs);
    const { placeFinderScript, feedItemFormat } = liveBuild(dirs) ?? {};
    return publishGeneration(dirs, { baseUrl: ctx.config.baseUrl, placeFinderScript, feedItemFormat: FEED_ITEM_FORMAT }, generation, live, async (compressed) => {
      publishClientAssets(dirs);
      // The worker renders the new editions and the index pages, then the city pages, which the main
      // thread also takes from once its text outputs are written: whichever is free renders the next.
      const placeFinder = fs.existsSync(path.join(live, "place-index.json"));
      const job: RenderJob = {
        dbFile: databaseFile(ctx.config.dataDir), baseUrl: ctx.config.baseUrl, now: ctx.config.now().toISOString(),
        placeFinder, placeFinderScript, archive: dirs.archive, generation, editions: keys.map((k) => k.id), retireTo: dirs.retired,
        pages: [...GLOBAL_PAGES, ...new Set(keys.map((k) => `/states/${slugify(k.state_name)}`))],
        shared: { pages: [...new Set(keys.map((k) => `/${k.slug}`))], cursor: new SharedArrayBuffer(4) },
        cityFiles: { keepFeedItemsFrom: feedItemFormat === FEED_ITEM_FORMAT ? live : undefined },
      };
      const [[rendered, renderMs], [textFiles, textMs]] = await Promise.all([
        timed(renderPages(compressed, generation, job)),
        timed((async () => {
          // The town's edition before each new one gains its "next" link: patched into its page and
          // twin (written again only when the stored file is not as expected).
          const { patched, toRender, twinsPatched } = await patchNextLinks(dirs.archive, ctx.config.baseUrl, editionsGainingNext(ctx.db, editionIds), dirs.retired);
          // An edition after a new one (an earlier date stored late) gains a new "previous" link: rendered again.
          toRender.push(...editionsAfter(ctx.db, editionIds));
          const rerendered = toRender.length ? await renderPages(compressed, generation, { ...job, editions: toRender, pages: [], shared: undefined }) : 0;
          // One read model on this thread, for the text outputs and the city pages it then takes.
          const site = createSiteData(ctx.db, ctx.config.baseUrl, { placeFinder, placeFinderScript, now: () => new Date(job.now) });
          // The new editions only: writeTextOutputs adds the twins of the editions beside them that were not patched.
          // The cities' twins and feeds are written with their pages, by whichever thread renders them.
          const text = await writeTextOutputs(ctx, {
            outDir: generation, archiveDir: dirs.archive, editionIds, full: false, fresh: true, site, onWrite: (rel, body) => compressed.add(rel, body),
            cityFilesWithPages: true, retireTo: dirs.retired, twinsPatched,
          });
          const helped = await renderPages(compressed, generation, { ...job, editions: [], pages: [] }, { db: ctx.db, site });
          return { patched, twinsPatched: twinsPatched.size, rerendered, helped, files: patched + twinsPatched.size + rerendered + text + helped };
        })()),
      ]);
      const { patched, twinsPatched, rerendered, helped, files } = textFiles;
      ctx.log.info({ editions: keys.length, pages: rendered + helped, renderMs, patched, twinsPatched, rerendered, pagesOnMainThread: helped, textFiles: files - helped, textMs, ms: Math.round(performance.now() - started) }, "editions published");
      return rendered + files;
    });
  });
}
