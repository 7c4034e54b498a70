import fs from "node:fs";
import path from "node:path";
import { parse } from "@babel/parser";
import { describe, expect, it } from "vitest";

// Rules of the code's shape (docs/architecture.md), checked on the sources themselves so a change
// that breaks one is told at once: layers only look down, no file imports itself back in a circle,
// SQL only in src/store, no module-level WeakMaps, no file over 350 lines and no function over 80.

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * The layers, lowest first: a file may import its own layer or any below, never one above. Written
 * once, here. Integrations sit above publish because the S3 target uploads the files publish lists,
 * and above the store because the local payment provider keeps its hosted sessions there.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["src/lib"],
  ["src/contract", "src/config"],
  ["src/core"],
  ["src/store"],
  ["src/site"],
  ["src/publish"],
  ["src/integrations"],
  ["src/services"],
  ["src/mcp", "src/app.ts"],
  ["api", "scripts", "src/pages", "src/components", "src/layouts", "src/env.d.ts"],
];

const MAX_FILE_LINES = 350;
const MAX_FUNCTION_LINES = 80;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(ts|mjs|js|astro)$/.test(entry.name)) out.push(path.relative(ROOT, path.join(entry.parentPath, entry.name)));
  }
  return out;
}

const code = [...sources("src"), ...sources("api")];
const everything = [...code, ...sources("scripts")];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

export function layerOf(file: string): number | undefined {
  const i = LAYERS.findIndex((layer) => layer.some((p) => file === p || file.startsWith(`${p}/`)));
  return i < 0 ? undefined : i;
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|^import\s*["'](\.{1,2}\/[^"']+)["']/gm;

/** The project files a file imports (relative specifiers; type-only imports count: they tie the design too). */
export function importsOf(file: string, text = read(file)): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SPECIFIER)) {
    const target = path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), m[1] ?? m[2] ?? m[3]!));
    if (!target.startsWith("..") && /\.(ts|mjs|js|astro)$/.test(target)) out.push(target);
  }
  return out;
}

/** Every circle of imports, each as the files in order (Tarjan's strongly connected components). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>(), stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next); low.set(v, next); next++; stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); component.push(w); } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Functions longer than the limit in a TypeScript or JavaScript file, as `file:line name (N lines)`. */
function longFunctions(file: string): string[] {
  const ast = parse(read(file), { sourceType: "module", plugins: ["typescript"], errorRecovery: true });
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) { for (const n of node) walk(n); return; }
    const n = node as { type?: string; loc?: { start: { line: number }; end: { line: number } }; id?: { name?: string }; key?: { name?: string } };
    if (n.type && /Function|Method$/.test(n.type) && n.loc && !/Type|Signature/.test(n.type)) {
      const lines = n.loc.end.line - n.loc.start.line + 1;
      if (lines > MAX_FUNCTION_LINES) out.push(`${file}:${n.loc.start.line} ${n.id?.name ?? n.key?.name ?? "(anonymous)"} (${lines} lines)`);
    }
    for (const [k, v] of Object.entries(node)) if (k !== "loc" && k !== "start" && k !== "end" && typeof v === "object") walk(v);
  };
  walk(ast.program);
  return out;
}

describe("the code's shape", () => {
  const graph = new Map(everything.map((f) => [f, importsOf(f)]));

  it("places every file in a layer", () => {
    expect(everything.filter((f) => !/\.d\.ts$/.test(f) && layerOf(f) === undefined && !f.startsWith("src/styles/"))).toEqual([]);
  });

  it("imports only from its own layer or the ones below", () => {
    const up = [...graph].flatMap(([from, targets]) => targets
      .filter((to) => (layerOf(to) ?? 0) > (layerOf(from) ?? Infinity))
      .map((to) => `${from} -> ${to}`));
    expect(up).toEqual([]);
  });

  it("has no circle of imports", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("keeps files under 350 lines and functions under 80", () => {
    const long = code.filter((f) => read(f).split("\n").length > MAX_FILE_LINES).map((f) => `${f} (${read(f).split("\n").length} lines)`);
    const longFns = code.filter((f) => /\.(ts|mjs|js)$/.test(f) && !f.endsWith(".d.ts")).flatMap(longFunctions);
    expect([...long, ...longFns]).toEqual([]);
  });

  it("prepares SQL only in src/store", () => {
    const outside = code.filter((f) => !f.startsWith("src/store/") && /\.prepare\(/.test(read(f)));
    expect(outside).toEqual([]);
  });

  it("keeps no state in module-level WeakMaps", () => {
    expect(code.filter((f) => /new WeakMap\b/.test(read(f)))).toEqual([]);
  });
});

describe("the shape checks themselves", () => {
  it("find a circle and an upward import planted in memory", () => {
    const graph = new Map([
      ["src/core/a.ts", ["src/core/b.ts"]], ["src/core/b.ts", ["src/core/c.ts"]], ["src/core/c.ts", ["src/core/a.ts"]], ["src/core/d.ts", []],
    ]);
    expect(circles(graph)).toEqual([["src/core/a.ts", "src/core/b.ts", "src/core/c.ts"]]);
    expect(layerOf("src/store/places/places.ts")! < layerOf("src/services/places/cities.ts")!).toBe(true);
    expect(importsOf("src/core/x.ts", `import type { A } from "../services/y.ts";\nexport { b } from "./z.ts";`)).toEqual(["src/services/y.ts", "src/core/z.ts"]);
  });
});
