import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../config/paths.ts";
import type { SiteData } from "../site/views.ts";
import { withDirLock } from "../lib/dir-lock.ts";

/**
 * The Astro site is built once (`astro build`, output "server") into a bundle whose App the publisher
 * calls in-process: rendering one page is a function call, so a morning renders exactly the pages it
 * changed and a full rebuild streams the archive through the same call.
 *
 * The bundle is rebuilt automatically when the site's sources change (a fingerprint of their sizes
 * and mtimes, plus Astro's version). Each build goes to its own directory under dist/renderer/builds
 * and `dist/renderer/current` is swapped to it with one rename, like the site itself: a process that
 * is importing or rendering with an older build is never pulled out from under.
 */
const ROOT = path.join(PROJECT_ROOT, "dist/renderer");
const BUILDS = path.join(ROOT, "builds");
const CURRENT = path.join(ROOT, "current");
// Also what the pages import from outside the site's folders (the developer guide is drawn from the
// contract, the MCP catalog and src/publish/developer-sections.ts): a change there must rebuild too.
const SOURCES = [
  "astro.config.mjs", "src/env.d.ts", "src/pages", "src/layouts", "src/components", "src/styles", "src/site",
  "src/contract", "src/mcp", "src/core", "src/lib", "src/publish/developer-sections.ts", "src/publish/markdown-text.ts", "node_modules/astro/package.json",
];
const KEEP_BUILDS = 3;

interface AstroApp {
  render(request: Request, options?: { locals?: object }): Promise<Response>;
  /** Astro's build manifest: `inlinedScripts` are the scripts its templates ship inline, by module id. */
  manifest?: { inlinedScripts?: Map<string, string> };
}

const SCRIPT_HASHES = "script-hashes.json";

/**
 * Records the CSP source expressions of the inline scripts a build's templates ship (Astro inlines a
 * component's small `<script>` into the page as it was built), beside the build. The page policy
 * allows these and nothing else inline: never a hash taken from a page's final text, which would
 * trust any script an injection put there.
 */
async function recordScriptHashes(buildDir: string, loaded?: AstroApp): Promise<void> {
  const app = loaded ?? ((await import(pathToFileURL(path.join(buildDir, "server/entry.mjs")).href)) as { app: AstroApp }).app;
  const hashes = [...(app.manifest?.inlinedScripts?.values() ?? [])].map((code) => `'sha256-${crypto.createHash("sha256").update(code).digest("base64")}'`);
  fs.writeFileSync(path.join(buildDir, SCRIPT_HASHES), JSON.stringify(hashes));
}

/** The live build's name: it changes when a new build goes live (a key for what is read from the builds). */
export function liveRendererBuild(): string | undefined {
  try {
    return fs.readlinkSync(CURRENT);
  } catch {
    return undefined;
  }
}

/**
 * The inline-script hashes of every kept build, the live one's first: a page in the archive that an
 * older build rendered keeps its script working until it is rendered again.
 */
export function templateScriptHashes(): string[] {
  const hashes = new Set<string>();
  const live = liveRendererBuild();
  const names = fs.existsSync(BUILDS) ? fs.readdirSync(BUILDS).sort().reverse() : [];
  for (const name of live ? [path.basename(live), ...names] : names) {
    try {
      for (const h of JSON.parse(fs.readFileSync(path.join(BUILDS, name, SCRIPT_HASHES), "utf8")) as string[]) hashes.add(h);
    } catch {
      // a build from before the hashes were recorded (loadRenderer records the live one), or one being pruned
    }
  }
  return [...hashes];
}

export interface Renderer {
  /**
   * Renders one site path; `undefined` when the page does not exist (404). `locals` adds to
   * `Astro.locals` beside `site` (the server-rendered pages pass what they show).
   */
  render(pathname: string, site: SiteData, locals?: object): Promise<string | undefined>;
  /**
   * The same page as UTF-8 bytes, for a file: the publisher writes them as they come, instead of
   * decoding the response to a string and encoding it again to write it.
   */
  renderBytes(pathname: string, site: SiteData, locals?: object): Promise<Buffer | undefined>;
  /** The built client assets (`_astro/*`) to publish next to the pages. */
  clientDir: string;
}

function walk(dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else out.push(full);
  }
}

function sourceFingerprint(): string {
  const hash = crypto.createHash("sha1");
  for (const rel of SOURCES) {
    const full = path.join(PROJECT_ROOT, rel);
    if (!fs.existsSync(full)) continue;
    const files: string[] = [];
    if (fs.statSync(full).isDirectory()) walk(full, files);
    else files.push(full);
    for (const f of files.sort()) {
      const s = fs.statSync(f);
      hash.update(`${path.relative(PROJECT_ROOT, f)}:${s.size}:${Math.round(s.mtimeMs)}\n`);
    }
  }
  return hash.digest("hex");
}

/** The live build directory and its fingerprint, if there is one. */
function currentBuild(): { dir: string; fingerprint: string } | undefined {
  try {
    const dir = path.resolve(ROOT, fs.readlinkSync(CURRENT));
    return { dir, fingerprint: fs.readFileSync(path.join(dir, "fingerprint.txt"), "utf8") };
  } catch {
    return undefined;
  }
}

/** Builds the renderer bundle when missing or out of date (or always with `force`). Safe across processes. */
export async function ensureRendererBuilt(options: { force?: boolean } = {}): Promise<void> {
  if (!options.force && currentBuild()?.fingerprint === sourceFingerprint()) return;
  await withDirLock(path.join(ROOT, ".build.lock"), async () => {
    const fingerprint = sourceFingerprint();
    if (!options.force && currentBuild()?.fingerprint === fingerprint) return; // another process built it meanwhile
    const name = `${Date.now().toString(36)}-${fingerprint.slice(0, 8)}`;
    const outDir = path.join(BUILDS, name);
    // A child process keeps Vite's build machinery out of the long-running server or publisher.
    await promisify(execFile)(process.execPath, [path.join(PROJECT_ROOT, "node_modules/astro/bin/astro.mjs"), "build", "--silent"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1", CITYDAILY_RENDERER_OUT: outDir },
      maxBuffer: 16 << 20,
    });
    fs.writeFileSync(path.join(outDir, "fingerprint.txt"), fingerprint);
    await recordScriptHashes(outDir);
    const tmp = `${CURRENT}.${process.pid}.tmp`;
    fs.rmSync(tmp, { force: true });
    fs.symlinkSync(path.relative(ROOT, outDir), tmp);
    fs.renameSync(tmp, CURRENT);
    // Never the build just made: names sort by the clock that made them, and a run under a shifted
    // clock (npm run test:year-ahead) leaves builds whose names sort after every new one.
    const others = fs.readdirSync(BUILDS).filter((n) => n !== name).sort();
    for (const old of others.slice(0, Math.max(0, others.length - (KEEP_BUILDS - 1)))) fs.rmSync(path.join(BUILDS, old), { recursive: true, force: true });
  });
}

/** Where the live build's client assets are (for copying `_astro/*` into the site). */
export function rendererClientDir(): string | undefined {
  const build = currentBuild();
  return build && path.join(build.dir, "client");
}

const loaded = new Map<string, Renderer>();

export async function loadRenderer(): Promise<Renderer> {
  await ensureRendererBuilt();
  const build = currentBuild();
  if (!build) throw new Error("the Astro renderer bundle is missing after building it");
  const cached = loaded.get(build.dir);
  if (cached) return cached;
  const { app } = (await import(pathToFileURL(path.join(build.dir, "server/entry.mjs")).href)) as { app: AstroApp };
  if (!fs.existsSync(path.join(build.dir, SCRIPT_HASHES))) await recordScriptHashes(build.dir, app);
  const renderer: Renderer = {
    clientDir: path.join(build.dir, "client"),
    async render(pathname, site, locals) {
      return (await renderer.renderBytes(pathname, site, locals))?.toString("utf8");
    },
    async renderBytes(pathname, site, locals) {
      const response = await app.render(new Request(`http://render.invalid${pathname}`), { locals: { ...locals, site } });
      // The 404 page itself answers 404; any other page answering 404 does not exist.
      if (response.status === 404 && pathname !== "/404") return undefined;
      const body = Buffer.from(await response.arrayBuffer());
      // A newer build replaced this one (another process rebuilt after a deploy) and pruned what this
      // one still loads lazily: render with the current build instead.
      if (response.status >= 500 && currentBuild()?.dir !== build.dir) {
        loaded.delete(build.dir);
        return (await loadRenderer()).renderBytes(pathname, site, locals);
      }
      if (response.status !== 200 && response.status !== 404) throw new Error(`rendering ${pathname} answered ${response.status}: ${body.toString("utf8", 0, 500)}`);
      return body;
    },
  };
  loaded.set(build.dir, renderer);
  return renderer;
}
