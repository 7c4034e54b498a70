import fs from "node:fs";
import path from "node:path";
import { parse } from "@babel/parser";
import { describe, expect, it } from "vitest";

// Rules of the code's shape (docs/architecture.md), checked on the sources themselves so a change
// that breaks one is told at once: layers only look down, and so do the domains inside a layer; no
// file imports itself back in a circle; SQL only in src/store, and api/ reaches it only through
// services; no HTML in api/; no module-level WeakMaps; no file over 350 lines and no function over 80.

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

/**
 * Inside a layer, its domains in order, lowest first: a file may import its own domain or one of a
 * lower rank, never one above it nor a peer of its own rank (an inner array: rooms that stand side by
 * side and do not lean on each other). A domain is the first folder under the layer's path; a file
 * at the layer's root is named by its own name. Written once, here; docs/architecture.md says why.
 */
export const DOMAIN_ORDERS: Readonly<Record<string, readonly (string | readonly string[])[]>> = {
  // Lib-like first (places, the calendar, weather words), then what an edition is made of, then the
  // edition, then what builds on it (commerce's emails, the fediverse Article).
  "src/core": [
    "errors.ts", "places", "calendar", "weather", "hazards", "sources", "search", "readers", "mail", "directory",
    "edition", "commerce", "fediverse", "oauth", "mcp",
  ],
  // The database and its batching, the platform's tables, places; the morning reads them all.
  "src/store": [
    "db.ts", "group-commit.ts", "migrations", "platform", "places", "sources", "directory", "search", "readers", "mail",
    "commerce", "oauth", "fediverse", "morning",
  ],
  "src/integrations": ["http-json.ts", "publish", "backup", "census", "weather", "hazards", "feeds", "mail", "payments"],
  // The platform is the floor (the context and the per-app state it holds); operators (sign-in,
  // sessions, CSRF) sit below commerce and OAuth, which both use them; commerce re-renders a town's
  // pages through the site's publish after a sale; the morning uses every domain, and the operations bind them all.
  "src/services": [
    "platform", "places", "sources", "weather", "directory", "operators", "readers", "mail", "site", "commerce",
    "fediverse", "oauth", "morning", "operations",
  ],
  // api/ in rooms: HTTP plumbing, then the MCP endpoint and the routes side by side, then the app and the server.
  "api": ["http", ["mcp", "routes"], "app.ts", "server.ts"],
  // OAuth's consent builds on the operator's sign-in.
  "api/routes": ["site", "readers", "mail", "commerce", "fediverse", "operator", "oauth"],
};

/** A file's domain in the ordered area `area` (the first folder under it, or the file's own name at its root). */
export function domainOf(area: string, file: string): string | undefined {
  return file.startsWith(`${area}/`) ? file.slice(area.length + 1).split("/")[0] : undefined;
}

/** A domain's rank in its area's order, or undefined when the order does not name it. */
function rankOf(area: string, domain: string): number | undefined {
  const i = DOMAIN_ORDERS[area]!.findIndex((d) => d === domain || (Array.isArray(d) && d.includes(domain)));
  return i < 0 ? undefined : i;
}

/** Every import of a domain at or above its own rank (its own domain apart), as `file -> target (why)`. */
export function upwardInDomains(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const area of Object.keys(DOMAIN_ORDERS)) {
    for (const [from, targets] of graph) {
      const mine = domainOf(area, from);
      if (mine === undefined) continue;
      for (const to of targets) {
        const theirs = domainOf(area, to);
        if (theirs === undefined || theirs === mine) continue;
        const [r, t] = [rankOf(area, mine), rankOf(area, theirs)];
        if (r === undefined || t === undefined || t < r) continue;
        out.push(`${from} -> ${to} (in ${area}, ${mine} may not import ${theirs}, ${t === r ? "which stands beside it" : "above it"})`);
      }
    }
  }
  return out;
}

/** An HTML tag: `<p>`, `</div>`, `<a href=...>`, `<!DOCTYPE html>` (never a type argument such as `<string>`). */
const HTML_TAG = new RegExp(
  "<(?:![dD][oO][cC][tT][yY][pP][eE]|/?(?:a|abbr|article|aside|b|blockquote|body|br|button|caption|code|dd|details|dialog|div|dl|dt|em|" +
  "fieldset|figcaption|figure|footer|form|h[1-6]|head|header|hr|html|i|iframe|img|input|label|legend|li|link|main|meta|nav|noscript|" +
  "ol|optgroup|option|output|p|path|pre|q|s|script|section|select|small|span|strong|style|sub|summary|sup|svg|table|tbody|td|template|" +
  "textarea|tfoot|th|thead|time|title|tr|u|ul)(?=[\\s/>]))",
);

/** The lines holding an HTML tag, as `file:line: text`. */
export function htmlLines(file: string, text = read(file)): string[] {
  return text.split("\n").flatMap((line, i) => (HTML_TAG.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : []));
}

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

  it("names every domain of a layer in its domain order", () => {
    const unnamed = Object.keys(DOMAIN_ORDERS).flatMap((area) => [...new Set(everything.flatMap((f) => {
      const d = domainOf(area, f);
      return d !== undefined && rankOf(area, d) === undefined ? [`${area}/${d}`] : [];
    }))]);
    expect(unnamed, "add each to its layer's DOMAIN_ORDERS, at the rank its imports allow").toEqual([]);
  });

  it("imports inside a layer only from its own domain or a lower one", () => {
    expect(upwardInDomains(graph), "a domain imports one above it (or its peer): move the shared part down, or invert the call").toEqual([]);
  });

  it("reaches the store from api/ only through services", () => {
    const toStore = [...graph].flatMap(([from, targets]) => from.startsWith("api/") ? targets.filter((t) => t.startsWith("src/store/")).map((t) => `${from} -> ${t}`) : []);
    expect(toStore, "move the read or write into a service function (src/services/<domain>/)").toEqual([]);
  });

  it("writes no HTML in api/: pages are Astro pages under src/pages/on-request/", () => {
    expect(code.filter((f) => f.startsWith("api/")).flatMap((f) => htmlLines(f)), "lines of api/ holding an HTML tag").toEqual([]);
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

  it("find a domain importing one above it, or its peer, planted in memory", () => {
    const graph = new Map([
      ["src/core/readers/preferences.ts", ["src/core/edition/weekly.ts", "src/core/places/zone-names.ts", "src/lib/time.ts"]],
      ["src/core/edition/weekly.ts", ["src/core/readers/preferences.ts", "src/core/edition/sections.ts"]],
      ["api/mcp/endpoint.ts", ["api/routes/site/embed.ts", "api/http/problem.ts"]],
      ["api/routes/oauth/consent.ts", ["api/routes/operator/sign-in.ts"]],
    ]);
    expect(upwardInDomains(graph)).toEqual([
      "src/core/readers/preferences.ts -> src/core/edition/weekly.ts (in src/core, readers may not import edition, above it)",
      "api/mcp/endpoint.ts -> api/routes/site/embed.ts (in api, mcp may not import routes, which stands beside it)",
    ]);
    expect(htmlLines("api/x.ts", `const a: Promise<void> = f<string>();\nreturn "<p>hi</p>";\nconst d = "<!doctype html>";\nfunction g<S extends T>() {}`))
      .toEqual(["api/x.ts:2: return \"<p>hi</p>\";", "api/x.ts:3: const d = \"<!doctype html>\";"]);
  });
});
