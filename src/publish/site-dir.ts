import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { threadId } from "node:worker_threads";

/**
 * The published site under `DATA_DIR/site/`:
 *
 *   archive/                 only grows: dated edition pages and twins ({slug}/{date}.html|.md) and
 *                            the hashed client assets (_astro/*). Written once per edition, never copied.
 *   generations/<id>/        everything else (home, /cities, states, city pages, feeds, sitemaps,
 *                            llms files...). A publish builds a new generation next to the live one
 *                            (hard links for what it did not change, fresh files for what it did)...
 *   current -> generations/<id>   ...and then swaps this symlink with one rename(2): readers see the
 *                            old site or the new one, never a half-written one.
 *
 * A request looks in `current` first, then in `archive`.
 */
export interface SiteDirs {
  root: string;
  archive: string;
  generations: string;
  current: string;
  /**
   * Where a publish keeps the archive files it replaced until it is done (`SyncFileWriter`'s
   * `retireTo`), emptied after the swap.
   */
  retired: string;
}

export function siteDirs(dataDir: string): SiteDirs {
  const root = path.join(dataDir, "site");
  return { root, archive: path.join(root, "archive"), generations: path.join(root, "generations"), current: path.join(root, "current"), retired: path.join(root, "retired") };
}

/** The live generation directory, or undefined before the first build. */
export function currentGeneration(dirs: SiteDirs): string | undefined {
  try {
    return path.resolve(dirs.root, fs.readlinkSync(dirs.current));
  } catch {
    return undefined;
  }
}

export function siteExists(dataDir: string): boolean {
  return currentGeneration(siteDirs(dataDir)) !== undefined;
}

/** What a build records about itself in its generation: a dotfile, never served. */
const BUILD_INFO = ".build.json";

export interface BuildInfo {
  /** The public origin every absolute link of the generation was written with. */
  baseUrl: string;
  /** The place finder's hashed module the pages load (written by full builds, kept by mornings). */
  placeFinderScript?: string;
  /** `FEED_ITEM_FORMAT` of the feeds' items: a morning keeps them only when it is still the same. */
  feedItemFormat?: number;
}

/** Records the build in `generation` (a morning's copy of the live one is unlinked first). */
export function recordBuild(generation: string, info: BuildInfo): void {
  const file = path.join(generation, BUILD_INFO);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, JSON.stringify(info));
}

/** What the live site was built with; undefined before the first build or for a site built before builds were recorded. */
export function liveBuild(dirs: SiteDirs): BuildInfo | undefined {
  const live = currentGeneration(dirs);
  if (!live) return undefined;
  try {
    return JSON.parse(fs.readFileSync(path.join(live, BUILD_INFO), "utf8")) as BuildInfo;
  } catch {
    return undefined;
  }
}

/**
 * The base URL a command that writes links (emails, an incremental publish) must use: BASE_URL when
 * it is set and agrees with the live site's, the site's own when BASE_URL is not set (the admin CLI
 * or `npm run morning` run without the server's environment), and an error line when they differ.
 */
export function baseUrlForSite(dataDir: string, config: { baseUrl: string; baseUrlFromEnv: boolean }): { baseUrl: string } | { error: string } {
  const built = liveBuild(siteDirs(dataDir))?.baseUrl;
  if (!built || built === config.baseUrl) return { baseUrl: config.baseUrl };
  if (!config.baseUrlFromEnv) return { baseUrl: built };
  return { error: `citydaily: BASE_URL is ${config.baseUrl} but the site in ${dataDir} was built for ${built}; emails would link to the wrong place. Run with BASE_URL=${built}, or rebuild the site for the new address first (BASE_URL=${config.baseUrl} npm run build).` };
}

/** A new, empty generation directory with a unique, time-ordered name. */
export function newGeneration(dirs: SiteDirs): string {
  const name = `${Date.now().toString(36).padStart(9, "0")}-${process.pid}-${crypto.randomBytes(3).toString("hex")}`;
  const dir = path.join(dirs.generations, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.mkdirSync(dirs.archive, { recursive: true });
  return dir;
}

/**
 * Hard-links every file of `from` into `to` that `to` does not have yet: a morning writes what it
 * changes into the empty generation first, then links the rest over (cost follows the number of
 * index pages, not their bytes, and no file is written twice).
 */
export function linkTree(from: string, to: string): number {
  let n = 0;
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) {
      fs.mkdirSync(dst, { recursive: true });
      n += linkTree(src, dst);
    } else if (entry.isFile()) {
      try {
        fs.linkSync(src, dst);
        n++;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
    }
  }
  return n;
}

/**
 * Writes files synchronously under one root, creating each directory once. `atomic` (for the
 * archive, which readers already see): temp file + rename; otherwise in place, for a generation no
 * reader sees yet and into which nothing has been linked.
 */
export class SyncFileWriter {
  readonly #dirs = new Set<string>();
  readonly #atomic: boolean;
  readonly #retireTo: string | undefined;
  #seq = 0;
  /**
   * `retireTo` (an existing directory): a file replaced atomically is first linked there, so its inode
   * is freed when the publish empties that directory, after its writes. On ext4 without a journal
   * (this project's benchmark machine) every new file skips, one by one, the inodes freed in the
   * last minute (six while their inode table block is dirty): a morning that replaced 30,000 archive files (the "next" links) and then created
   * 90,000 spent a fifth of its CPU in the kernel's `recently_deleted` (docs/performance.md).
   */
  constructor(options: { atomic: boolean; retireTo?: string }) {
    this.#atomic = options.atomic;
    this.#retireTo = options.retireTo;
  }

  /** Names unique across the writers of one publish (threads, and several writers on one thread). */
  readonly #id = `${process.pid}-${threadId}-${crypto.randomBytes(4).toString("hex")}`;

  write(file: string, data: string | Buffer): void {
    const dir = path.dirname(file);
    // Most directories exist already (the archive's city folders): try first, create on ENOENT.
    try {
      this.#writeFile(file, data);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || this.#dirs.has(dir)) throw err;
      fs.mkdirSync(dir, { recursive: true });
      this.#dirs.add(dir);
      this.#writeFile(file, data);
    }
  }

  #writeFile(file: string, data: string | Buffer): void {
    if (!this.#atomic) return fs.writeFileSync(file, data);
    // Unique per writer (its id) and per file (a counter): no random bytes per file.
    const seq = ++this.#seq;
    const tmp = `${file}.${this.#id}-${seq}.tmp`;
    try {
      fs.writeFileSync(tmp, data);
      if (this.#retireTo) retire(file, path.join(this.#retireTo, `${this.#id}-${seq}`));
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }
}

/** Keeps `file`'s inode alive under `as` (a new file has none to keep). */
function retire(file: string, as: string): void {
  try {
    fs.linkSync(file, as);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** Writes a file readers may already see, atomically (temp file + rename). */
export function writeAtomic(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

/** Points `current` at `generation` in one atomic rename, then removes generations older than the last `keep`. */
export function swapCurrent(dirs: SiteDirs, generation: string, keep = 3): void {
  const tmp = `${dirs.current}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(path.relative(dirs.root, generation), tmp);
  fs.renameSync(tmp, dirs.current);
  // Older generations stay a little while: a request that resolved `current` just before the swap
  // may still be reading from one.
  const names = fs.readdirSync(dirs.generations).sort();
  const live = path.basename(generation);
  const old = names.filter((n) => n !== live).slice(0, Math.max(0, names.length - keep));
  for (const n of old) fs.rmSync(path.join(dirs.generations, n), { recursive: true, force: true });
}

/**
 * What a publish that died (killed) or failed left behind, removed by the next one while it holds
 * the publish lock: generation directories newer than the live one (never swapped in; a failed
 * build's writers may even have recreated the one it discarded) and, when `sweepTemp`, the `*.tmp`
 * files of interrupted atomic writes anywhere under the site (a walk of the archive: done only
 * after a publish did not finish). Returns what was removed.
 */
export function removeAbandoned(dirs: SiteDirs, sweepTemp: boolean): { generations: number; tmpFiles: number } {
  let generations = 0;
  let tmpFiles = 0;
  const live = currentGeneration(dirs);
  const liveName = live ? path.basename(live) : "";
  fs.rmSync(dirs.retired, { recursive: true, force: true });
  // What an earlier publish handed to a background removal that did not finish (killed, or still at it).
  for (const name of fs.existsSync(dirs.root) ? fs.readdirSync(dirs.root) : []) {
    if (name.startsWith(RETIRED_GONE)) removeQuietly(path.join(dirs.root, name));
  }
  if (fs.existsSync(dirs.generations)) {
    for (const name of fs.readdirSync(dirs.generations)) {
      if (name > liveName) {
        fs.rmSync(path.join(dirs.generations, name), { recursive: true, force: true });
        generations++;
      }
    }
  }
  const sweep = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) sweep(p);
      else if (entry.name.endsWith(".tmp")) {
        fs.rmSync(p, { force: true });
        tmpFiles++;
      }
    }
  };
  if (sweepTemp) {
    sweep(dirs.archive);
    if (live) sweep(live);
    for (const name of fs.existsSync(dirs.root) ? fs.readdirSync(dirs.root) : []) {
      if (name.endsWith(".tmp")) {
        fs.rmSync(path.join(dirs.root, name), { force: true, recursive: true });
        tmpFiles++;
      }
    }
  }
  return { generations, tmpFiles };
}

const RETIRED_GONE = "retired.gone.";

function removeQuietly(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch {
    // a background removal is at it too: whichever finishes, the directory goes
  }
}

/**
 * Empties `dirs.retired` once a publish is done, without waiting for it: the directory is renamed
 * aside at once and removed by a child `rm -rf` that may outlive this process (a morning of 3,000
 * towns frees some 6,000 replaced archive files there, seconds of the kernel's time that nothing after
 * the swap needs). Where there is no `rm`, it is removed here; one left over is removed by the next
 * publish (`removeAbandoned`).
 */
export function removeRetiredInBackground(dirs: SiteDirs): void {
  if (!fs.existsSync(dirs.retired)) return;
  const gone = path.join(dirs.root, `${RETIRED_GONE}${process.pid}-${Date.now().toString(36)}`);
  fs.renameSync(dirs.retired, gone);
  try {
    const child = spawn("rm", ["-rf", gone], { detached: true, stdio: "ignore" });
    child.on("error", () => removeQuietly(gone));
    child.unref();
  } catch {
    removeQuietly(gone);
  }
}

/** Removes a generation that was abandoned half-way (a failed publish). */
export function discardGeneration(generation: string): void {
  fs.rmSync(generation, { recursive: true, force: true });
}

/**
 * Every file of the live site as a reader sees it: relative path (slash-separated) -> absolute file.
 * The live generation wins over the archive, as in the server's lookup. Temporary files are skipped.
 */
export function listSiteFiles(dirs: SiteDirs): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (root: string, dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      throw e;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".") || entry.name.endsWith(".tmp")) continue;
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(root, file);
      else if (entry.isFile()) {
        const rel = path.relative(root, file).split(path.sep).join("/");
        if (!files.has(rel)) files.set(rel, file);
      }
    }
  };
  const live = currentGeneration(dirs);
  if (live) walk(live, live);
  walk(dirs.archive, dirs.archive);
  return files;
}
