import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { etagOf, PRECOMPRESSED_MANIFEST, Precompressor, precompressTree, readPrecompressed } from "../../src/publish/precompressed.ts";
import { linkTree, newGeneration, siteDirs } from "../../src/publish/site-dir.ts";

const roots: string[] = [];
afterEach(() => { for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true }); });

function site() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "citydaily-precompressed-"));
  roots.push(root);
  const dirs = siteDirs(root);
  return { dirs, generation: newGeneration(dirs) };
}

describe("copies compressed at publish", () => {
  it("are made for text files from 64 KB, by content, decode to the file, and are not made twice", async () => {
    const { dirs, generation } = site();
    const big = `{"places":[${Array.from({ length: 6000 }, (_, i) => `"place ${i}"`).join(",")}]}`;
    fs.writeFileSync(path.join(generation, "place-index.json"), big);
    fs.writeFileSync(path.join(generation, "small.html"), "<p>small</p>");
    fs.writeFileSync(path.join(generation, "image.png"), Buffer.alloc(70_000));
    expect(await precompressTree(dirs, generation)).toBe(2);
    const br = await readPrecompressed(dirs, etagOf(big), "br");
    const gz = await readPrecompressed(dirs, etagOf(big), "gzip");
    expect(zlib.brotliDecompressSync(br!).toString()).toBe(big);
    expect(zlib.gunzipSync(gz!).toString()).toBe(big);
    expect(await readPrecompressed(dirs, etagOf("<p>small</p>"), "br")).toBeUndefined();
    expect(fs.readdirSync(path.join(dirs.root, "compressed"))).toHaveLength(2);
    expect(await precompressTree(dirs, generation)).toBe(0);
  });

  it("drop copies of contents no longer published once they are a day old", async () => {
    const { dirs, generation } = site();
    const body = "x".repeat(70_000);
    fs.writeFileSync(path.join(generation, "feed.xml"), body);
    await precompressTree(dirs, generation);
    const store = path.join(dirs.root, "compressed");
    const stale = path.join(store, "stale-etag.br"), recent = path.join(store, "recent-etag.br");
    fs.writeFileSync(stale, "old");
    fs.writeFileSync(recent, "new");
    // Ages by this process's clock, not the kernel's stamp (they differ under npm run test:year-ahead).
    fs.utimesSync(recent, new Date(), new Date());
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    fs.utimesSync(stale, twoDaysAgo, twoDaysAgo);
    const live = fs.readdirSync(store).filter((n) => n.startsWith(etagOf(body).replace(/"/g, "")));
    for (const n of live) fs.utimesSync(path.join(store, n), twoDaysAgo, twoDaysAgo);
    await precompressTree(dirs, generation);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.readdirSync(store).filter((n) => live.includes(n))).toHaveLength(2);
  });

  it("a morning that links a large file over neither reads nor compresses it again, and never writes through a link", async () => {
    const { dirs, generation } = site();
    const index = `{"places":[${Array.from({ length: 8000 }, (_, i) => `"place ${i}"`).join(",")}]}`;
    fs.writeFileSync(path.join(generation, "place-index.json"), index);
    const build = new Precompressor(dirs);
    build.add("place-index.json", index);
    expect(await build.finish(generation)).toBe(2);
    const manifestBefore = fs.readFileSync(path.join(generation, PRECOMPRESSED_MANIFEST), "utf8");

    // The morning: writes its own large file, links the rest over from the live generation.
    const morning = newGeneration(dirs);
    const feed = `<rss>${"<item>news</item>".repeat(5000)}</rss>`;
    fs.writeFileSync(path.join(morning, "feed.xml"), feed);
    const p = new Precompressor(dirs);
    p.add("feed.xml", feed);
    linkTree(generation, morning);
    // The index's copies removed from the store: a morning that read the linked file and compressed it
    // again would make them anew (4 copies, not 2).
    const store = path.join(dirs.root, "compressed");
    for (const n of fs.readdirSync(store)) if (n.startsWith(etagOf(index).replace(/"/g, ""))) fs.rmSync(path.join(store, n));
    expect(await p.finish(morning, generation)).toBe(2); // the feed's two copies, not the index's
    expect(fs.readdirSync(store).filter((n) => n.startsWith(etagOf(index).replace(/"/g, "")))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(morning, PRECOMPRESSED_MANIFEST), "utf8")) as Record<string, string>;
    expect(manifest).toEqual({ "place-index.json": etagOf(index), "feed.xml": etagOf(feed) });
    // The live generation's manifest is untouched (it was linked over, then replaced, not written through).
    expect(fs.readFileSync(path.join(generation, PRECOMPRESSED_MANIFEST), "utf8")).toBe(manifestBefore);
  });

  it("a file written again by the morning keeps no ETag of the live one, even when it shrank below the threshold", async () => {
    const { dirs, generation } = site();
    const bigFeed = `<rss>${"<item>news</item>".repeat(5000)}</rss>`;
    fs.mkdirSync(path.join(generation, "salem-oregon"));
    fs.writeFileSync(path.join(generation, "salem-oregon/feed.xml"), bigFeed);
    const build = new Precompressor(dirs);
    build.add("salem-oregon/feed.xml", bigFeed);
    await build.finish(generation);

    // The morning's render worker writes the city's feed again, shorter; the main thread's compressor
    // never sees it (small files are not handed over), then the rest is linked over.
    const morning = newGeneration(dirs);
    fs.mkdirSync(path.join(morning, "salem-oregon"));
    fs.writeFileSync(path.join(morning, "salem-oregon/feed.xml"), "<rss><item>today</item></rss>");
    linkTree(generation, morning);
    await new Precompressor(dirs).finish(morning, generation);
    const manifest = JSON.parse(fs.readFileSync(path.join(morning, PRECOMPRESSED_MANIFEST), "utf8")) as Record<string, string>;
    expect(manifest).toEqual({});
  });

  it("refuses an ETag that is not one of ours (no path outside the store)", async () => {
    const { dirs } = site();
    expect(await readPrecompressed(dirs, '"../../etc/passwd"', "br")).toBeUndefined();
  });
});
