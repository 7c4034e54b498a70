import { chromium, type Browser, type BrowserContext } from "playwright-core";

/** Debian's Chromium (never a downloaded browser), headless, with its background networking off. */
function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// One Chromium per test worker: a launch costs about 0.6 s of CPU and 2 s of wall, and a worker runs
// its files one after another (test/vitest.config.ts: isolate is off), so the next file reuses it.
// Playwright closes it when the worker exits.
let shared: Promise<Browser> | undefined;

async function workerBrowser(): Promise<Browser> {
  const browser = await (shared ??= launch());
  if (browser.isConnected()) return browser;
  shared = launch(); // it crashed or was closed: a fresh one for this file and the next
  return shared;
}

/**
 * The worker's Chromium as this test file's own: pages and contexts open as usual, and `close()`
 * closes every one this file opened (leaving the browser to the next file), so a file ends with
 * nothing of its own left open, as if it had closed a browser of its own.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await workerBrowser();
  const opened = new Set<BrowserContext>();
  const track = (context: BrowserContext): void => {
    opened.add(context);
    context.once("close", () => opened.delete(context));
  };
  const own: Partial<Browser> = {
    newContext: async (options) => {
      const context = await browser.newContext(options);
      track(context);
      return context;
    },
    newPage: async (options) => {
      const page = await browser.newPage(options);
      track(page.context());
      return page;
    },
    close: async () => {
      await Promise.all([...opened].map((context) => context.close()));
    },
  };
  return new Proxy(browser, {
    get: (target, key) => {
      if (key in own) return own[key as keyof Browser];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
