import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { contentTypeOf } from "./file-headers.ts";
import { writeAtomic, type SiteDirs } from "./site-dir.ts";

/**
 * Compressed copies of the site's larger files, made once when they are published rather than by
 * the first reader who asks (the 4.6 MB place index took 1.1 s to brotli). They are kept by content,
 * `compressed/{etag}.br|.gz` under the site root: a file rewritten by a later publish has a new
 * ETag, so a copy can never be stale, and files that did not change are not compressed again. The
 * server's compression (api/compression.ts) looks here before compressing; smaller files cost it
 * well under a millisecond, once per version.
 */

export type Encoding = "br" | "gzip";

/** Files from this size are compressed when published. */
export const PRECOMPRESS_FROM_BYTES = 16 * 1024;

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

/**
 * Compresses every text file of `dir` from PRECOMPRESS_FROM_BYTES whose content has no copies yet,
 * then removes copies of contents no longer in `dir` once they are a day old (a reader of an older
 * generation may still be served one for a while).
 */
export async function precompressTree(dirs: SiteDirs, dir: string, now = Date.now()): Promise<number> {
  let written = 0;
  const live = new Set<string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const type = contentTypeOf(file);
    if (!type || fs.statSync(file).size < PRECOMPRESS_FROM_BYTES) continue;
    const body = fs.readFileSync(file, "utf8");
    const etag = etagOf(body);
    live.add(etag.replace(/"/g, ""));
    for (const encoding of ["br", "gzip"] as const) {
      const target = fileOf(dirs, etag, encoding);
      if (fs.existsSync(target)) continue;
      writeAtomic(target, await compress(Buffer.from(body), encoding));
      written++;
    }
  }
  if (!fs.existsSync(storeOf(dirs))) return written;
  for (const name of fs.readdirSync(storeOf(dirs), { withFileTypes: true })) {
    const file = path.join(storeOf(dirs), name.name);
    if (!name.isFile() || live.has(name.name.replace(/\.(br|gz)$/, ""))) continue;
    if (now - fs.statSync(file).mtimeMs > 24 * 3600 * 1000) fs.rmSync(file, { force: true });
  }
  return written;
}
