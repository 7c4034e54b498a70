import crypto from "node:crypto";
import { escapeHtml, unescapeHtml } from "../../lib/html.ts";

// Outbound links of an edition (web and email) go through /go/{slug}/{date}/{sig}?to=URL, which counts
// a click per link per edition and redirects. The signature binds the target to the edition, so the
// redirect is never an open one; nothing in the link names a reader.

const SIG_CHARS = 16;

export function clickSignature(key: string, slug: string, date: string, url: string): string {
  return crypto.createHmac("sha256", key).update(`${slug}/${date}\n${url}`).digest("base64url").slice(0, SIG_CHARS);
}

export function clickSignatureValid(key: string, slug: string, date: string, url: string, sig: string): boolean {
  const want = Buffer.from(clickSignature(key, slug, date, url));
  const got = Buffer.from(sig);
  return got.length === want.length && crypto.timingSafeEqual(got, want);
}

export function clickUrl(baseUrl: string, key: string, slug: string, date: string, url: string): string {
  return `${baseUrl}/go/${slug}/${date}/${clickSignature(key, slug, date, url)}?to=${encodeURIComponent(url)}`;
}


/**
 * The edition's HTML (as `renderEditionHtml` writes it: double-quoted, entity-escaped attributes)
 * with every outbound http(s) link through the counting redirect; links to our own site stay as
 * they are (they are not outbound, and readers' own pages are not counted).
 */
export function withClickLinks(html: string, baseUrl: string, key: string, slug: string, date: string): string {
  return html.replace(/<a href="([^"]*)"/g, (whole, raw: string) => {
    const href = unescapeHtml(raw);
    if (!/^https?:\/\//i.test(href) || href === baseUrl || href.startsWith(`${baseUrl}/`)) return whole;
    return `<a href="${escapeHtml(clickUrl(baseUrl, key, slug, date, href))}"`;
  });
}


/** The edition's HTML with every counting link (`{baseUrl}/go/...?to=URL`) back to the address it leads to. */
export function withoutClickLinks(html: string, baseUrl: string): string {
  const prefix = `${baseUrl}/go/`;
  return html.replace(/<a href="([^"]*)"/g, (whole, raw: string) => {
    const href = unescapeHtml(raw);
    if (!href.startsWith(prefix)) return whole;
    const to = new URL(href).searchParams.get("to");
    return to && /^https?:\/\//i.test(to) ? `<a href="${escapeHtml(to)}"` : whole;
  });
}

/** A click that a link scanner, not a person, most likely made. */
const SCANNER_AGENT = /bot\b|crawl|spider|slurp|preview|scanner|proofpoint|mimecast|barracuda|safelinks|urldefense|python-|curl\/|wget\/|go-http-client|java\/|okhttp|libwww|headlesschrome/i;

export function looksLikeScanner(userAgent: string | undefined): boolean {
  return !userAgent || SCANNER_AGENT.test(userAgent);
}

/**
 * Mail security gateways open every link of a message within a second or two of delivery. Held in
 * memory for a few seconds per client address (never stored): a second distinct link of one edition
 * opened from one address within `BURST_MS` marks a burst (a person reading an email comes back to it
 * between two links), and none of its clicks count.
 */
export const BURST_MS = 2000;
const BURST_LINKS = 2;

interface Recent { edition: string; url: string; at: number; counted: boolean }

export class ClickWindow {
  #recent = new Map<string, Recent[]>();

  /**
   * Records a click; answers whether to count it, and which earlier clicks of the burst it reveals
   * were counted and must be taken back.
   */
  see(address: string, edition: string, url: string, at: number): { count: boolean; takeBack: string[] } {
    if (this.#recent.size > 50_000) this.#prune(at);
    const fresh = (this.#recent.get(address) ?? []).filter((r) => at - r.at < BURST_MS);
    const same = fresh.filter((r) => r.edition === edition);
    const links = new Set([...same.map((r) => r.url), url]);
    if (links.size >= BURST_LINKS) {
      const takeBack = same.filter((r) => r.counted).map((r) => r.url);
      for (const r of same) r.counted = false;
      fresh.push({ edition, url, at, counted: false });
      this.#recent.set(address, fresh);
      return { count: false, takeBack };
    }
    fresh.push({ edition, url, at, counted: true });
    this.#recent.set(address, fresh);
    return { count: true, takeBack: [] };
  }

  #prune(at: number): void {
    for (const [address, list] of this.#recent) if (list.every((r) => at - r.at >= BURST_MS)) this.#recent.delete(address);
  }
}
