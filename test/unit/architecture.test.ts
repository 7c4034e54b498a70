import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Rules of the code's shape (README, "Layout"), checked on the sources themselves so a change that
// breaks one is told at once: SQL only in src/store, no per-app state in module-level WeakMaps,
// publishing and the site's read model never call up into the use cases of src/services.

const ROOT = path.resolve(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(ts|mjs|js|astro)$/.test(entry.name)) out.push(path.relative(ROOT, path.join(entry.parentPath, entry.name)));
  }
  return out;
}

const code = [...sources("src"), ...sources("api")];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

describe("the code's shape", () => {
  it("prepares SQL only in src/store", () => {
    const outside = code.filter((f) => !f.startsWith("src/store/") && /\.prepare\(/.test(read(f)));
    expect(outside).toEqual([]);
  });

  it("keeps no state in module-level WeakMaps", () => {
    expect(code.filter((f) => /new WeakMap\b/.test(read(f)))).toEqual([]);
  });

  it("publishes and builds the site's views without importing src/services", () => {
    const up = code.filter((f) => /^src\/(publish|site|store|core)\//.test(f) && /from\s+["'][./]*\/services\//.test(read(f)));
    expect(up).toEqual([]);
  });
});
