import crypto from "node:crypto";
import type { H3Event, Middleware } from "h3";
import { LRUCache } from "lru-cache";

// Security headers. Every response: `X-Content-Type-Options: nosniff` and a `Referrer-Policy`. HTML:
// a Content-Security-Policy that allows scripts only from this origin or by the sha256 of each inline
// script the page carries (computed from the page itself, once per ETag), and forbids framing. A
// response that sets its own policy (an embeddable card, a page with a stricter referrer rule) keeps it.

const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc=)([^>]*)>([\s\S]*?)<\/script>/gi;

/** The CSP source expressions of a page's inline scripts (data blocks such as JSON-LD never run). */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attrs, body] of html.matchAll(INLINE_SCRIPT)) {
    const type = /\btype=["']?([^"'\s>]+)/i.exec(attrs)?.[1]?.toLowerCase();
    if (type && type !== "module" && type !== "text/javascript" && type !== "application/javascript") continue;
    hashes.add(`'sha256-${crypto.createHash("sha256").update(body).digest("base64")}'`);
  }
  return [...hashes];
}

/** `formActions`: origins a form of the page may lead to besides this one (a payment provider's page it redirects to). */
export function pagePolicy(scriptHashes: string[], formActions: readonly string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self'${scriptHashes.map((h) => ` ${h}`).join("")}`,
    // Inline styles cannot run code; the site's pages and emails' web views use a few.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    `form-action 'self'${formActions.map((o) => ` ${o}`).join("")}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

/** On every response, errors included (called from the app's onResponse hook). */
export function baseSecurityHeaders(headers: Headers): void {
  headers.set("X-Content-Type-Options", "nosniff");
  if (!headers.has("referrer-policy")) headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
}

/** The page policy on HTML answers that do not bring their own. */
export function contentSecurityPolicy(): Middleware {
  const policies = new LRUCache<string, string>({ max: 10_000 });
  return async (_event: H3Event, next) => {
    const res = await next();
    if (!(res instanceof Response)) return res;
    const html = (res.headers.get("content-type") ?? "").startsWith("text/html");
    if (!html || res.headers.has("content-security-policy") || !res.body) return res;
    const headers = new Headers(res.headers);
    const body = await res.text();
    const etag = headers.get("etag");
    let policy = etag ? policies.get(etag) : undefined;
    if (!policy) {
      policy = pagePolicy(inlineScriptHashes(body));
      if (etag) policies.set(etag, policy);
    }
    headers.set("Content-Security-Policy", policy);
    headers.set("X-Frame-Options", "DENY");
    return new Response(body, { status: res.status, headers });
  };
}
