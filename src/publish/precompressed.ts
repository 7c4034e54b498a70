import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { contentTypeOf } from "./file-headers.ts";
import type { SiteDirs } from "./site-dir.ts";

/**
 * Compressed copies of the site's larger files, made once when they are published rather than by
 * the first reader who asks (the 4.6 MB place index took 1.1 s to brotli). They are kept by content,
 * `compressed/{etag}.br|.gz` under the site root: a file rewritten by a later publish has a new
 * ETag, so a copy can never be stale, and files that did not change are not compressed again. The
 * server's compression (api/http/compression.ts) looks here before compressing; smaller files cost it
 * well under a millisecond, once per version.
 */

export type Encoding = "br" | "gzip";

/**
 * Files from this size are compressed when published. The city pages and city feeds (20 to 40 KB)
 * change every morning and cost the server under a millisecond to compress on first request (kept
 * per version); compressing all of them up front was 4,000 compressions a morning, a third of its
 * CPU. What is left here is what is slow to compress on demand: the place index, /cities, the global
 * feed, the sitemaps, llms-full.txt.
 */
export const PRECOMPRESS_FROM_BYTES = 64 * 1024;

/** The strong validator the server gives a file: over its exact bytes as text. */
export function etagOf(body: string): string {
  return `"${crypto.createHash("sha1").update(body).digest("base64url")}"`;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Brotli quality 5: 0.99 MB for the 4.6 MB place index in 1.1 s (quality 9 saves 3% more for 4x the time). */
export function compress(body: Uint8Array, encoding: Encoding, quality = 5): Promise<Buffer> {
  return encoding === "br"
    ? brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
    : gzip(body, { level: 6 });
}

function compressSync(body: Uint8Array, encoding: Encoding, quality = 5): Buffer {
  return encoding === "br"
    ? zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
    : zlib.gzipSync(body, { level: 6 });
}

const storeOf = (dirs: SiteDirs) => path.join(dirs.root, "compressed");
const fileOf = (dirs: SiteDirs, etag: string, encoding: Encoding) =>
  path.join(storeOf(dirs), `${etag.replace(/"/g, "")}.${encoding === "br" ? "br" : "gz"}`);

/** The published compressed copy of the content with this ETag, if there is one. */
export async function readPrecompressed(dirs: SiteDirs, etag: string, encoding: Encoding): Promise<Uint8Array | undefined> {
  if (!/^"[\w-]+"$/.test(etag)) return undefined;
  try {
    return new Uint8Array(await fs.promises.readFile(fileOf(dirs, etag, encoding)));
  } catch {
    return undefined;
  }
}

/** Each generation's list of its precompressed files (relative path -> ETag); dotfiles are never served. */
export const PRECOMPRESSED_MANIFEST = ".compressed.json";

type Manifest = Record<string, string>;

function readManifest(generation: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(generation, PRECOMPRESSED_MANIFEST), "utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

/**
 * The compressed copies of one publish. The writers hand it each file they write (`add`), so a
 * content is hashed and compressed once, while the rest of the publish goes on (zlib works on libuv's
 * threads); files the publish did not write keep the ETags the live generation's manifest gives them,
 * so a morning neither re-reads nor re-compresses the place index, old sitemaps or untouched feeds.
 */
export class Precompressor {
  readonly #dirs: SiteDirs;
  readonly #manifest: Manifest = {};
  readonly #queue: Array<{ bytes: Buffer; etag: string; encoding: Encoding }> = [];
  readonly #pending = new Set<string>();
  readonly #made = new Set<string>();
  #pumping: Promise<void> | undefined;
  #error: unknown;
  written = 0;

  constructor(dirs: SiteDirs) {
    this.#dirs = dirs;
    fs.mkdirSync(storeOf(dirs), { recursive: true });
    for (const name of fs.readdirSync(storeOf(dirs))) this.#made.add(name);
  }

  /** A file of the generation (slash-separated path) with its content, as written. */
  add(rel: string, body: string | Uint8Array): void {
    // Measured without encoding: most files are smaller (a city feed, 39 KB, was encoded here a second time only to be measured).
    if ((typeof body === "string" ? Buffer.byteLength(body) : body.byteLength) < PRECOMPRESS_FROM_BYTES || !contentTypeOf(rel)) {
      delete this.#manifest[rel];
      return;
    }
    const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    // The same digest as etagOf(text): SHA-1 of the UTF-8 bytes.
    const etag = `"${crypto.createHash("sha1").update(bytes).digest("base64url")}"`;
    this.#manifest[rel] = etag;
    for (const encoding of ["br", "gzip"] as const) {
      const name = path.basename(fileOf(this.#dirs, etag, encoding));
      if (this.#made.has(name) || this.#pending.has(name)) continue;
      this.#pending.add(name);
      this.#queue.push({ bytes, etag, encoding });
    }
    if (this.#queue.length) this.#pumping ??= this.#pump();
  }

  /**
   * Compresses the queue one file per turn of the event loop, synchronously (zlib's async calls go
   * through a stream per call, which cost more than the compressing itself for files this size),
   * so the publish's writes and the render worker's messages are served in between.
   */
  async #pump(): Promise<void> {
    // Always asynchronous, so `#pumping` is set before this can clear it.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      for (let job = this.#queue.shift(); job; job = this.#queue.shift()) {
        const target = fileOf(this.#dirs, job.etag, job.encoding);
        // Large files (the place index) on libuv's threads: seconds of brotli would stall a server
        // that publishes in-process.
        const data = job.bytes.byteLength > 1 << 20 ? await compress(job.bytes, job.encoding) : compressSync(job.bytes, job.encoding);
        const tmp = `${target}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
        fs.writeFileSync(tmp, data);
        fs.renameSync(tmp, target);
        this.#made.add(path.basename(target));
        this.written++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      this.#error ??= e;
    } finally {
      this.#pumping = undefined;
    }
  }

  /**
   * Waits for the copies, carries over the entries of `previous` (the live generation a morning
   * linked from) for files this publish did not write, saves the manifest in `generation`, and
   * removes copies of contents no longer published once they are a day old (a reader of an older
   * generation may still be served one for a while).
   */
  async finish(generation: string, previous?: string, now = Date.now()): Promise<number> {
    const carried = previous ? readManifest(previous) : undefined;
    if (previous && !carried) {
      // A generation made before manifests existed: read what this publish linked over, once.
      for (const entry of fs.readdirSync(generation, { withFileTypes: true, recursive: true })) {
        if (!entry.isFile()) continue;
        const file = path.join(entry.parentPath, entry.name);
        const rel = path.relative(generation, file).split(path.sep).join("/");
        if (rel in this.#manifest || rel === PRECOMPRESSED_MANIFEST) continue;
        if (contentTypeOf(file) && fs.statSync(file).size >= PRECOMPRESS_FROM_BYTES) this.add(rel, fs.readFileSync(file));
      }
    }
    // Carried only where the file is the live one linked over: a file this publish wrote again (on
    // any thread, and perhaps smaller than the threshold now) is a new inode and keeps no old ETag.
    for (const [rel, etag] of Object.entries(carried ?? {})) if (!(rel in this.#manifest) && sameFile(path.join(generation, rel), path.join(previous!, rel))) this.#manifest[rel] = etag;
    while (this.#pumping) await this.#pumping;
    if (this.#error) throw this.#error;
    // The live generation's manifest was linked over: a new file, never a write through the link.
    fs.rmSync(path.join(generation, PRECOMPRESSED_MANIFEST), { force: true });
    fs.writeFileSync(path.join(generation, PRECOMPRESSED_MANIFEST), JSON.stringify(this.#manifest));
    const live = new Set(Object.values(this.#manifest).map((e) => e.replace(/"/g, "")));
    for (const name of this.#made) {
      if (live.has(name.replace(/\.(br|gz)$/, ""))) continue;
      const file = path.join(storeOf(this.#dirs), name);
      try {
        if (now - fs.statSync(file).mtimeMs > 24 * 3600 * 1000) fs.rmSync(file, { force: true });
      } catch {
        // gone already
      }
    }
    return this.written;
  }
}

/** Whether both names are one file (a hard link), both existing. */
function sameFile(a: string, b: string): boolean {
  const sa = fs.statSync(a, { throwIfNoEntry: false });
  const sb = sa && fs.statSync(b, { throwIfNoEntry: false });
  return !!sa && !!sb && sa.ino === sb.ino && sa.dev === sb.dev;
}

/**
 * Compresses every text file of `dir` from PRECOMPRESS_FROM_BYTES whose content has no copies yet,
 * then prunes the store (see `Precompressor.finish`). Publishes hand their files to a `Precompressor`
 * as they write them instead of walking the tree.
 */
export async function precompressTree(dirs: SiteDirs, dir: string, now = Date.now()): Promise<number> {
  const p = new Precompressor(dirs);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const rel = path.relative(dir, file).split(path.sep).join("/");
    if (rel === PRECOMPRESSED_MANIFEST || !contentTypeOf(file) || fs.statSync(file).size < PRECOMPRESS_FROM_BYTES) continue;
    p.add(rel, fs.readFileSync(file));
  }
  return p.finish(dir, undefined, now);
}
