import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "../config.ts";
import type { SiteData } from "../services/site-pages.ts";
import { withDirLock } from "./dir-lock.ts";

/**
 * The Astro site is built once (`astro build`, output "server") into a bundle whose App the publisher
 * calls in-process: rendering one page is a function call, so a morning renders exactly the pages it
 * changed and a full rebuild streams the archive through the same call. The bundle is rebuilt
 * automatically when the site's sources change (fingerprint of their sizes and mtimes).
 */
export const RENDERER_DIR = path.join(PROJECT_ROOT, "dist/renderer");
const ENTRY = path.join(RENDERER_DIR, "server/entry.mjs");
const FINGERPRINT_FILE = path.join(RENDERER_DIR, "fingerprint.txt");
export const RENDERER_CLIENT_DIR = path.join(RENDERER_DIR, "client");
const SOURCES = ["astro.config.mjs", "src/env.d.ts", "src/pages", "src/layouts", "src/components", "src/styles", "src/site", "package-lock.json"];

interface AstroApp {
  render(request: Request, options?: { locals?: object }): Promise<Response>;
}

export interface Renderer {
  /** Renders one site path; `undefined` when the page does not exist (404). */
  render(pathname: string, site: SiteData): Promise<string | undefined>;
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

const readFingerprint = () => (fs.existsSync(FINGERPRINT_FILE) && fs.existsSync(ENTRY) ? fs.readFileSync(FINGERPRINT_FILE, "utf8") : "");

/** Builds the renderer bundle when missing or out of date (or always with `force`). Safe across processes. */
export async function ensureRendererBuilt(options: { force?: boolean } = {}): Promise<void> {
  if (!options.force && readFingerprint() === sourceFingerprint()) return;
  await withDirLock(path.join(PROJECT_ROOT, "dist/.renderer.lock"), async () => {
    const fingerprint = sourceFingerprint();
    if (!options.force && readFingerprint() === fingerprint) return; // another process built it meanwhile
    // A child process keeps Vite's build machinery out of the long-running server or publisher.
    const result = spawnSync(process.execPath, [path.join(PROJECT_ROOT, "node_modules/astro/bin/astro.mjs"), "build", "--silent"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`astro build failed:\n${result.stdout}\n${result.stderr}`);
    fs.writeFileSync(FINGERPRINT_FILE, fingerprint);
  });
}

let loaded: { fingerprint: string; renderer: Renderer } | undefined;

export async function loadRenderer(): Promise<Renderer> {
  await ensureRendererBuilt();
  const fingerprint = readFingerprint();
  if (loaded?.fingerprint === fingerprint) return loaded.renderer;
  const { app } = (await import(`${pathToFileURL(ENTRY).href}?v=${fingerprint}`)) as { app: AstroApp };
  const renderer: Renderer = {
    clientDir: RENDERER_CLIENT_DIR,
    async render(pathname, site) {
      const response = await app.render(new Request(`http://render.invalid${pathname}`), { locals: { site } });
      // The 404 page itself answers 404; any other page answering 404 does not exist.
      if (response.status === 404 && pathname !== "/404") return undefined;
      const body = await response.text();
      if (response.status !== 200 && response.status !== 404) throw new Error(`rendering ${pathname} answered ${response.status}: ${body.slice(0, 500)}`);
      return body;
    },
  };
  loaded = { fingerprint, renderer };
  return renderer;
}
