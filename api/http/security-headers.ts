import type { H3Event, Middleware } from "h3";
import { liveRendererBuild, templateScriptHashes } from "../../src/publish/site-renderer.ts";

// Security headers. Every response: `X-Content-Type-Options: nosniff` and a `Referrer-Policy`; with an
// https BASE_URL, HSTS. HTML: a Content-Security-Policy that allows scripts only from this origin or
// by the sha256 of an inline script the site's templates ship (recorded from the build, never read
// from the page, so a script injected into a page does not run), and forbids framing. A response that
// sets its own policy (an embeddable card, a page with a stricter referrer rule) keeps it.

/**
 * HSTS for a year, subdomains included: once a browser has seen the https site it never asks it over
 * http again. `preload` is left to the operator of the domain (docs/production.md says when).
 */
export const HSTS = "max-age=31536000; includeSubDomains";

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

/** On every response, errors included (called from the app's onResponse hook); `baseUrl` the public origin. */
export function baseSecurityHeaders(headers: Headers, baseUrl?: string): void {
  headers.set("X-Content-Type-Options", "nosniff");
  if (baseUrl?.startsWith("https:")) headers.set("Strict-Transport-Security", HSTS);
  if (!headers.has("referrer-policy")) headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
}

/** The page policy, inline scripts allowed by the hashes of the scripts the templates ship. */
export function sitePagePolicy(formActions: readonly string[] = []): string {
  return pagePolicy(templateScriptHashes(), formActions);
}

/** The page policy on HTML answers that do not bring their own; the body passes through untouched. */
export function contentSecurityPolicy(): Middleware {
  // The policy changes only when another renderer build goes live.
  let kept: { build: string | undefined; policy: string } | undefined;
  return async (_event: H3Event, next) => {
    const res = await next();
    if (!(res instanceof Response)) return res;
    const html = (res.headers.get("content-type") ?? "").startsWith("text/html");
    if (!html || res.headers.has("content-security-policy")) return res;
    const build = liveRendererBuild();
    if (!kept || kept.build !== build) kept = { build, policy: sitePagePolicy() };
    const headers = new Headers(res.headers);
    headers.set("Content-Security-Policy", kept.policy);
    headers.set("X-Frame-Options", "DENY");
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  };
}
