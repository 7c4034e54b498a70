import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listSiteFiles, siteDirs } from "../../src/publish/site-dir.ts";
import { buildSite, publishEditions } from "../../src/services/site/publish.ts";
import { addEdition } from "../helpers/seed.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The S3 publish target against s3rver, an S3-compatible server running in this process on
// 127.0.0.1, behind a small proxy that records every PUT and can refuse some (a failing upload).

const BUCKET = "citydaily-site";
const PREFIX = "www/";
const MANIFEST = ".citydaily-manifest.json.gz";

let s3dir: string;
let s3server: S3rver;
let proxy: http.Server;
let server: TestServer;
let client: S3Client;
/** Keys (relative to the prefix) of the PUTs that reached the storage, in order. */
let puts: string[] = [];
let refusePut: (key: string) => boolean = () => false;

beforeAll(async () => {
  s3dir = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-s3-"));
  s3server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const { port: s3port } = await s3server.run();
  proxy = http.createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url!, "http://x").pathname).slice(`/${BUCKET}/${PREFIX}`.length);
    if (req.method === "PUT" && refusePut(key)) {
      req.resume();
      res.writeHead(503, { "Content-Type": "application/xml" }).end("<Error><Code>SlowDown</Code><Message>refused by the test</Message></Error>");
      return;
    }
    const upstream = http.request({ host: "127.0.0.1", port: s3port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      if (req.method === "PUT" && up.statusCode === 200) puts.push(key);
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  server = await startTestServer({
    MAIL_SENDER: "off",
    PUBLISH_TARGET: `s3://${BUCKET}/${PREFIX}`,
    AWS_ENDPOINT_URL: endpoint,
    S3_FORCE_PATH_STYLE: "true",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
  });
  client = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } });
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await server?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
  await s3server?.close();
  fs.rmSync(s3dir, { recursive: true, force: true });
});

async function getObject(key: string) {
  const res = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: PREFIX + key }));
  return { bytes: Buffer.from(await res.Body!.transformToByteArray()), type: res.ContentType, cache: res.CacheControl, encoding: res.ContentEncoding, sha256: res.Metadata?.sha256 };
}

async function listKeys(): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: PREFIX, ContinuationToken: token }));
    for (const o of page.Contents ?? []) keys.push(o.Key!.slice(PREFIX.length));
    token = page.NextContinuationToken;
  } while (token);
  return keys.sort();
}

/** The bucket holds the local site byte for byte: every file, and besides only its .br/.gz variants and the manifest. */
async function expectBucketMatchesSite(): Promise<void> {
  const local = listSiteFiles(siteDirs(server.dataDir));
  const keys = await listKeys();
  const extra = keys.filter((k) => !local.has(k));
  for (const k of extra) {
    if (k === MANIFEST) continue;
    const base = k.replace(/\.(br|gz)$/, "");
    expect(local.has(base), `${k} is neither a site file nor a variant of one`).toBe(true);
    const obj = await getObject(k);
    const decoded = k.endsWith(".br") ? zlib.brotliDecompressSync(obj.bytes) : zlib.gunzipSync(obj.bytes);
    expect(decoded.equals(fs.readFileSync(local.get(base)!)), `${k} decodes to ${base}`).toBe(true);
    expect(obj.encoding).toBe(k.endsWith(".br") ? "br" : "gzip");
  }
  expect(local.size).toBeGreaterThan(20);
  expect([...local.keys()].filter((rel) => !keys.includes(rel))).toEqual([]);
  for (const [rel, file] of local) {
    const obj = await getObject(rel);
    expect(obj.bytes.equals(fs.readFileSync(file)), `${rel} is the same bytes`).toBe(true);
  }
}

const CITIES = ["boise-idaho", "st-louis-missouri", "kansas-city-missouri"];

describe("publishing to S3-compatible object storage", () => {
  it("uploads the whole site on the first publish, with the server's headers and precompressed variants", async () => {
    for (const slug of CITIES) addEdition(server.ctx.db, slug, "2026-11-19", `${slug}: a clear, cold Thursday`, "Clear and cold all day. ".repeat(40));
    const result = await buildSite(server.ctx);
    expect(result.target.target).toBe(`s3://${BUCKET}/${PREFIX}`);
    expect(result.target.uploaded).toBeGreaterThan(20);
    expect(puts.filter((k) => k !== MANIFEST)).toHaveLength(result.target.uploaded);
    await expectBucketMatchesSite();

    const home = await getObject("index.html");
    expect(home.type).toBe("text/html; charset=utf-8");
    expect(home.cache).toBe("public, max-age=300, s-maxage=600");
    expect(home.bytes.toString()).toContain("Boise");
    const edition = await getObject("boise-idaho/2026-11-19.html");
    expect(edition.cache).toBe("public, max-age=86400, s-maxage=31536000");
    expect(edition.bytes.toString()).toContain("a clear, cold Thursday");
    const brEdition = await getObject("boise-idaho/2026-11-19.html.br");
    expect(brEdition.encoding).toBe("br");
    expect(brEdition.type).toBe("text/html; charset=utf-8");
    expect(brEdition.cache).toBe(edition.cache);
    const asset = (await listKeys()).find((k) => k.startsWith("_astro/") && k.endsWith(".css"));
    expect(asset).toBeDefined();
    expect((await getObject(asset!)).cache).toBe("public, max-age=31536000, immutable");
    expect((await getObject("feed.xml")).type).toBe("application/rss+xml; charset=utf-8");
    expect((await getObject("boise-idaho.md")).type).toBe("text/markdown; charset=utf-8");
    // The hash a later run compares against travels with the object too.
    expect(edition.sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 120_000);

  it("a morning that changes two cities uploads only what changed, new editions first and feeds last", async () => {
    puts = [];
    const ids = ["boise-idaho", "st-louis-missouri"].map((slug) => addEdition(server.ctx.db, slug, "2026-11-20", `${slug}: frost, then sun`, "Frost early, then sun. ".repeat(40))!);
    const result = await publishEditions(server.ctx, ids);
    const uploaded = puts.filter((k) => k !== MANIFEST);
    expect(uploaded).toHaveLength(result.target.uploaded);
    expect(uploaded).toEqual(expect.arrayContaining([
      "boise-idaho/2026-11-20.html", "st-louis-missouri/2026-11-20.html", "boise-idaho/2026-11-20.md",
      "boise-idaho.html", "st-louis-missouri.html", "index.html", "feed.xml",
    ]));
    // Nothing of the city that had no new edition. Of the editions already there, only each changed
    // city's latest, which gained its link forward to the new one (page and twin, with their copies).
    expect(uploaded.filter((k) => k.startsWith("kansas-city-missouri"))).toEqual([]);
    expect(uploaded.filter((k) => k.includes("2026-11-19")).sort()).toEqual(["boise-idaho", "st-louis-missouri"]
      .flatMap((slug) => ["html", "md"].flatMap((ext) => ["", ".br", ".gz"].map((c) => `${slug}/2026-11-19.${ext}${c}`))).sort());
    expect(uploaded.filter((k) => k.startsWith("_astro/"))).toEqual([]);
    // Every file of the site was either sent or found unchanged (the other city's pages and every older edition).
    const sentFiles = new Set(uploaded.map((k) => k.replace(/\.(br|gz)$/, ""))).size;
    expect(sentFiles + result.target.unchanged).toBe(listSiteFiles(siteDirs(server.dataDir)).size);
    // Readers never follow a link to a page not there yet: the edition before the pages linking to it, feeds last.
    const at = (k: string) => uploaded.indexOf(k);
    expect(at("boise-idaho/2026-11-20.html")).toBeLessThan(at("boise-idaho.html"));
    expect(at("boise-idaho/2026-11-20.html")).toBeLessThan(at("index.html"));
    expect(at("index.html")).toBeLessThan(at("feed.xml"));
    expect(Math.max(...uploaded.filter((k) => !/feed|sitemap|llms|\.xml/.test(k)).map(at))).toBeLessThan(at("feed.xml"));
    expect((await getObject("boise-idaho.html")).bytes.toString()).toContain("frost, then sun");
    await expectBucketMatchesSite();
  }, 120_000);

  it("an upload that fails half-way fails the publish, and the next run uploads only the rest", async () => {
    puts = [];
    const id = addEdition(server.ctx.db, "kansas-city-missouri", "2026-11-20", "kansas-city-missouri: windy", "Wind all day. ".repeat(60))!;
    // The storage refuses the index pages (the SDK's retries included): the new edition gets there, the home page does not.
    refusePut = (key) => key.startsWith("index.");
    await expect(publishEditions(server.ctx, [id])).rejects.toThrow();
    const firstRun = [...puts];
    expect(firstRun).toContain("kansas-city-missouri/2026-11-20.html");
    expect(firstRun).not.toContain("index.html");
    expect(firstRun).not.toContain("feed.xml");
    // The live home page in the bucket is still yesterday's: a failed run leaves readers a whole site.
    expect((await getObject("index.html")).bytes.toString()).not.toContain("kansas-city-missouri: windy");

    refusePut = () => false;
    puts = [];
    const retry = await publishEditions(server.ctx, [id]);
    const secondRun = puts.filter((k) => k !== MANIFEST);
    expect(secondRun).toContain("index.html");
    expect(secondRun).toContain("feed.xml");
    // What made it the first time is not sent again.
    expect(secondRun).not.toContain("kansas-city-missouri/2026-11-20.html");
    expect(secondRun.filter((k) => firstRun.includes(k))).toEqual([]);
    expect(retry.target.uploaded).toBe(secondRun.length);
    expect((await getObject("index.html")).bytes.toString()).toContain("Kansas City");
    await expectBucketMatchesSite();
  }, 120_000);

  it("a publish with nothing new uploads nothing", async () => {
    puts = [];
    const result = await publishEditions(server.ctx, []);
    // Home and /cities are re-rendered each time; unchanged bytes are not sent.
    expect(result.target.uploaded).toBe(puts.filter((k) => k !== MANIFEST).length);
    expect(puts.filter((k) => k.includes("/2026-"))).toEqual([]);
    await expectBucketMatchesSite();
  }, 120_000);

  it("removes what the site dropped, except what a published page still links to", async () => {
    const dirs = siteDirs(server.dataDir);
    const live = fs.realpathSync(dirs.current);
    // Two pages only this generation has, and an archived page that links to one of them.
    fs.writeFileSync(path.join(live, "retired-page.html"), "<!doctype html><title>retired</title><p>nobody links here</p>");
    fs.writeFileSync(path.join(live, "moved-page.html"), "<!doctype html><title>moved</title><p>still linked</p>");
    fs.mkdirSync(path.join(dirs.archive, "boise-idaho"), { recursive: true });
    fs.writeFileSync(path.join(dirs.archive, "boise-idaho", "2026-01-02.html"), '<!doctype html><title>old</title><a href="/moved-page">see also</a>');
    await publishEditions(server.ctx, []);
    expect(await listKeys()).toEqual(expect.arrayContaining(["retired-page.html", "moved-page.html", "boise-idaho/2026-01-02.html"]));

    // A full build makes a fresh generation without the two pages.
    const result = await buildSite(server.ctx);
    expect(listSiteFiles(dirs).has("moved-page.html")).toBe(false);
    const keys = await listKeys();
    expect(keys).not.toContain("retired-page.html");
    expect(keys).toContain("moved-page.html");
    expect((await getObject("moved-page.html")).bytes.toString()).toContain("still linked");
    expect(result.target.deleted).toBe(1);
  }, 120_000);
});
