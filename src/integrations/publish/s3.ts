import crypto from "node:crypto";
import fs from "node:fs/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { S3TargetConfig } from "../../config/targets.ts";
import type { Logger } from "../../lib/log.ts";
import { eachLimited } from "../../lib/pool.ts";
import { cacheControlOf, contentTypeOf, isImmutable } from "../../publish/file-headers.ts";
import { listSiteFiles, type SiteDirs } from "../../publish/site-dir.ts";
import type { PublishTarget, TargetResult } from "./types.ts";

const gzip = promisify(zlib.gzip);

/**
 * Mirrors the published site to an S3-compatible bucket (S3, R2, MinIO, GCS interoperability) for a
 * CDN to serve. Keys are the site's files as they lie in DATA_DIR/site (`denver-colorado.html`,
 * `denver-colorado/2026-11-20.html`, `_astro/*`, `feed.xml`...), byte for byte, each with the
 * Content-Type and Cache-Control the server sends. Text files of 1 KiB or more also get
 * precompressed siblings, `{key}.br` and `{key}.gz`, with `Content-Encoding: br|gzip` and the
 * original's Content-Type, for the CDN to pick by Accept-Encoding (docs/production.md).
 *
 * Only what changed is uploaded: a manifest object (`.citydaily-manifest.json` under the prefix)
 * records each key's SHA-256 (also on the object, as `x-amz-meta-sha256`). It is saved after each
 * phase, every 20 seconds of a long upload and when a run fails, so an interrupted run is resumed by the next.
 *
 * Order, so a reader never follows a link to something not there yet: hashed assets; then new files
 * and dated editions; then changed index pages; feeds, sitemaps and llms files last. Keys the site
 * dropped are deleted only after all that, and never while a published file still links to them.
 */

// Gzipped: at 200,000 files the JSON is tens of megabytes of repetitive keys and hashes.
const MANIFEST = ".citydaily-manifest.json.gz";
const COMPRESS_MIN_BYTES = 1024;
/** How often the manifest is saved during a long upload (each save rewrites it whole). */
const CHECKPOINT_MS = 20_000;
const ENCODINGS = [
  { suffix: ".br", encoding: "br", compress: promisify(zlib.brotliCompress), options: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } } },
  { suffix: ".gz", encoding: "gzip", compress: promisify(zlib.gzip), options: { level: 9 } },
] as const;

interface Manifest {
  version: 1;
  /** key relative to the prefix -> SHA-256 (hex) of the uncompressed file it holds. */
  objects: Record<string, string>;
  /** Site file -> its version on this disk (inode, size, mtime) when hashed: unchanged files are not read again. */
  versions?: Record<string, string>;
}

interface Upload {
  rel: string;
  file: string;
  sha256: string;
  version: string;
  /** Keys to write: the file itself and any precompressed variant missing or stale. */
  keys: string[];
  phase: number;
}

const PHASES = ["hashed assets", "new files and editions", "changed pages", "feeds and sitemaps"];

function isFeedOrSitemap(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf("/") + 1);
  return /^(feed|sitemap|llms|robots)/.test(base) || base.endsWith(".xml");
}

function compressible(rel: string, size: number): boolean {
  return size >= COMPRESS_MIN_BYTES && /\.(html|md|xml|txt|json|css|js|mjs|svg)$/.test(rel);
}

/** The file's SHA-256, from the manifest when the file is the very version hashed last time. */
async function sha256Of(file: string, known: string | undefined, versions: Record<string, string>, rel: string): Promise<{ sha256: string; size: number; version: string }> {
  const st = await fs.stat(file);
  // Published files are replaced by rename, never rewritten in place: a new version is a new inode.
  const version = `${st.ino}:${st.size}:${st.mtimeMs}`;
  if (known !== undefined && versions[rel] === version) return { sha256: known, size: st.size, version };
  const body = await fs.readFile(file);
  return { sha256: crypto.createHash("sha256").update(body).digest("hex"), size: body.length, version };
}

/** URL paths by which a published file can link to `rel`. */
function linkForms(rel: string): string[] {
  const forms = [`/${rel}`];
  if (rel.endsWith(".html")) forms.push(`/${rel.slice(0, -".html".length)}`);
  return forms;
}

/** Keys of `candidates` that some published text file still links to (href, src, markdown link, sitemap loc). */
async function stillLinked(files: Map<string, string>, candidates: string[]): Promise<Set<string>> {
  const linked = new Set<string>();
  if (candidates.length === 0) return linked;
  const byForm = new Map<string, string>();
  for (const rel of candidates) for (const form of linkForms(rel)) byForm.set(form, rel);
  // A link is a site path followed by the end of the URL: a quote, ")", "<", "#", "?" or white space.
  const LINK = /(?:https?:\/\/[^/\s"'<>()]+)?(\/[^\s"'<>()#?]*)(?=["'<>()#?\s])/g;
  await eachLimited([...files.entries()], 16, async ([rel, file]) => {
    if (!/\.(html|md|xml|txt|json)$/.test(rel)) return;
    const text = await fs.readFile(file, "utf8");
    for (const m of text.matchAll(LINK)) {
      const target = byForm.get(m[1]);
      if (target) linked.add(target);
    }
  });
  return linked;
}

export function s3Target(config: S3TargetConfig, log: Logger): PublishTarget {
  return {
    name: `s3://${config.bucket}/${config.prefix}`,
    async publish(dirs) {
      // A client per publish (once a morning), closed after it: no sockets left open between runs.
      const client = s3Client(config);
      try {
        return await mirror(client, config, log, dirs);
      } finally {
        client.destroy();
      }
    },
  };
}

export function s3Client(config: S3TargetConfig): S3Client {
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    // Checksums only where an operation requires one: several S3-compatible servers reject the
    // SDK's default CRC32 trailers; the manifest's SHA-256 is the check that matters here.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** One mirroring run: the bucket, the prefix its keys go under, and how it is named in the logs. */
interface Mirror {
  client: S3Client;
  config: S3TargetConfig;
  log: Logger;
  name: string;
}

/** What the plan found: the files to upload, every key the site now has, and how many files are unchanged. */
interface Plan {
  uploads: Upload[];
  wanted: Set<string>;
  unchanged: number;
}

async function mirror(client: S3Client, config: S3TargetConfig, log: Logger, dirs: SiteDirs): Promise<TargetResult> {
  const m: Mirror = { client, config, log, name: `s3://${config.bucket}/${config.prefix}` };
  const started = performance.now();
  const files = listSiteFiles(dirs);
  const manifest = await readManifest(m);
  const { uploads, wanted, unchanged } = await plan(files, manifest);
  const uploaded = await upload(m, manifest, uploads);
  const deleted = await removeDropped(m, manifest, files, wanted);
  const result = { target: m.name, uploaded, deleted, unchanged };
  log.info({ ...result, files: files.size, ms: Math.round(performance.now() - started) }, "site mirrored to object storage");
  return result;
}

const keyOf = (m: Mirror, rel: string) => m.config.prefix + rel;

async function readManifest(m: Mirror): Promise<Manifest> {
  try {
    const res = await m.client.send(new GetObjectCommand({ Bucket: m.config.bucket, Key: keyOf(m, MANIFEST) }));
    const parsed = JSON.parse(zlib.gunzipSync(await res.Body!.transformToByteArray()).toString("utf8")) as Manifest;
    if (parsed.version === 1 && parsed.objects && typeof parsed.objects === "object") return parsed;
    m.log.warn({ target: m.name }, "publish manifest not understood; uploading everything");
  } catch (e) {
    if (!(e instanceof NoSuchKey) && (e as { name?: string }).name !== "NoSuchKey") throw e;
  }
  return { version: 1, objects: {} };
}

async function writeManifest(m: Mirror, manifest: Manifest): Promise<void> {
  await m.client.send(new PutObjectCommand({
    Bucket: m.config.bucket, Key: keyOf(m, MANIFEST), Body: await gzip(JSON.stringify(manifest)),
    ContentType: "application/gzip", CacheControl: "no-store",
  }));
}

async function put(m: Mirror, u: Upload, k: string, body: Buffer): Promise<void> {
  const variant = ENCODINGS.find((e) => k === u.rel + e.suffix);
  const payload = variant ? ((await variant.compress(body, variant.options as never)) as Buffer) : body;
  await m.client.send(new PutObjectCommand({
    Bucket: m.config.bucket,
    Key: keyOf(m, k),
    Body: payload,
    ContentType: contentTypeOf(u.rel) ?? "application/octet-stream",
    CacheControl: cacheControlOf(u.rel),
    ContentEncoding: variant?.encoding,
    Metadata: { sha256: u.sha256 },
  }));
}

/** Hashes every file and keeps those whose key or variants differ from the manifest, each in its phase. */
async function plan(files: Map<string, string>, manifest: Manifest): Promise<Plan> {
  const known = manifest.objects;
  const versions = (manifest.versions ??= {});
  const found: Plan = { uploads: [], wanted: new Set<string>([MANIFEST]), unchanged: 0 };
  await eachLimited([...files.entries()], 32, async ([rel, file]) => {
    const { sha256, size, version } = await sha256Of(file, known[rel], versions, rel);
    const all = [rel, ...(compressible(rel, size) ? ENCODINGS.map((e) => rel + e.suffix) : [])];
    for (const k of all) found.wanted.add(k);
    const keys = all.filter((k) => known[k] !== sha256);
    if (keys.length === 0) {
      versions[rel] = version;
      found.unchanged++;
      return;
    }
    const phase = rel.startsWith("_astro/") ? 0 : isFeedOrSitemap(rel) ? 3 : known[rel] === undefined || isImmutable(rel) ? 1 : 2;
    // The version is recorded once the file itself is uploaded (a failed run must not vouch for it).
    delete versions[rel];
    found.uploads.push({ rel, file, sha256, version, keys, phase });
  });
  return found;
}

/**
 * Uploads phase by phase, saving the manifest after each phase and every CHECKPOINT_MS; a run that
 * fails saves what did get there, so the next run uploads only the rest. Returns the keys written.
 */
async function upload(m: Mirror, manifest: Manifest, uploads: Upload[]): Promise<number> {
  const known = manifest.objects;
  const versions = manifest.versions!;
  let uploaded = 0;
  let lastCheckpoint = performance.now();
  try {
    for (let phase = 0; phase < PHASES.length; phase++) {
      const batch = uploads.filter((u) => u.phase === phase);
      if (batch.length === 0) continue;
      await eachLimited(batch, m.config.concurrency, async (u) => {
        const body = await fs.readFile(u.file);
        // The variants first: a CDN that prefers them never pairs a new plain file with an old variant for long.
        for (const k of [...u.keys].reverse()) {
          await put(m, u, k, body);
          known[k] = u.sha256;
          if (k === u.rel) versions[k] = u.version;
          uploaded++;
          if (performance.now() - lastCheckpoint >= CHECKPOINT_MS) {
            lastCheckpoint = performance.now();
            await writeManifest(m, manifest);
          }
        }
      });
      await writeManifest(m, manifest);
      lastCheckpoint = performance.now();
      m.log.debug({ target: m.name, phase: PHASES[phase], files: batch.length }, "publish phase uploaded");
    }
  } catch (e) {
    // Keep what did get there, so the next run uploads only the rest.
    await writeManifest(m, manifest).catch((err: unknown) => m.log.warn({ err, target: m.name }, "saving the publish manifest failed"));
    throw e;
  }
  return uploaded;
}

/** Removals last, and only of what no published file links to any more. Returns the keys deleted. */
async function removeDropped(m: Mirror, manifest: Manifest, files: Map<string, string>, wanted: Set<string>): Promise<number> {
  const known = manifest.objects;
  const versions = manifest.versions!;
  const gone = Object.keys(known).filter((k) => !wanted.has(k));
  let deleted = 0;
  if (gone.length === 0) return deleted;
  // A variant's fate follows its file's: `x.html.br` goes when `x.html` goes (or stops being compressed).
  const baseOf = (k: string) => {
    const e = ENCODINGS.find((v) => k.endsWith(v.suffix) && known[k.slice(0, -v.suffix.length)] !== undefined);
    return e ? k.slice(0, -e.suffix.length) : k;
  };
  const linked = await stillLinked(files, [...new Set(gone.map(baseOf).filter((b) => !wanted.has(b)))]);
  const removable = gone.filter((k) => !linked.has(baseOf(k)));
  if (linked.size > 0) m.log.info({ target: m.name, kept: [...linked].slice(0, 20), count: linked.size }, "kept objects the site no longer has: published pages still link to them");
  await eachLimited(removable, m.config.concurrency, async (k) => {
    await m.client.send(new DeleteObjectCommand({ Bucket: m.config.bucket, Key: keyOf(m, k) }));
    delete known[k];
    delete versions[k];
    deleted++;
  });
  if (deleted > 0) await writeManifest(m, manifest);
  return deleted;
}
