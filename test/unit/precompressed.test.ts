import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { etagOf, precompressTree, readPrecompressed } from "../../src/publish/precompressed.ts";
import { newGeneration, siteDirs } from "../../src/publish/site-dir.ts";

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
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    fs.utimesSync(stale, twoDaysAgo, twoDaysAgo);
    const live = fs.readdirSync(store).filter((n) => n.startsWith(etagOf(body).replace(/"/g, "")));
    for (const n of live) fs.utimesSync(path.join(store, n), twoDaysAgo, twoDaysAgo);
    await precompressTree(dirs, generation);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    expect(fs.readdirSync(store).filter((n) => live.includes(n))).toHaveLength(2);
  });

  it("refuses an ETag that is not one of ours (no path outside the store)", async () => {
    const { dirs } = site();
    expect(await readPrecompressed(dirs, '"../../etc/passwd"', "br")).toBeUndefined();
  });
});
