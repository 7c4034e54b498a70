import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (never a downloaded browser), headless, with its background networking off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
