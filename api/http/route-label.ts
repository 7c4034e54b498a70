import { allOperations } from "../../src/contract/operations/index.ts";
import { ACTOR_PATH, ARTICLE_PATH, FOLLOWERS_PATH, INBOX_PATH, OUTBOX_PATH } from "../../src/services/fediverse/paths.ts";

// The `route` label of the request-duration histogram: the route's pattern, never the path itself.
// 32,000 towns must stay one series (`/:slug`), not 32,000; a path nothing knows is one label too.
// And the path the request log keeps: the path itself, less the secrets some carry (loggedPath).

/** The site's pages with a fixed name (anything else one segment long is a town). */
const SITE_PAGES = new Set(["cities", "states", "developers", "advertise", "places", "subscribe", "listing-policy", "404"]);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Matcher = { test: RegExp; label: string };

/** `/api/city/{slug}` answers `/api/city/:slug`. */
function matcher(path: string): Matcher {
  const source = path.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("[^/]+");
  return { test: new RegExp(`^${source}$`), label: path.replace(/\{(\w+)\}/g, ":$1") };
}

/** The contract's operations as matchers, each pattern once. */
function operationMatchers(): Matcher[] {
  const seen = new Set<string>();
  return allOperations.filter((op) => !seen.has(op.path) && seen.add(op.path)).map((op) => matcher(op.path));
}

/** Built once from the contract and the town actors' paths (answered under h3's `/fediverse/towns/**`), never changed. */
const OPERATIONS = operationMatchers();
const FEDIVERSE = [ACTOR_PATH, INBOX_PATH, OUTBOX_PATH, FOLLOWERS_PATH, ARTICLE_PATH].map(matcher);

/**
 * The authorization server's endpoints (`routes` in src/services/oauth/provider.ts), answered under
 * h3's `/oauth/**`: a refused token request must show as `/oauth/token`, not lost in `other`.
 */
const OAUTH_ENDPOINTS = new Set(["authorize", "token", "register", "revoke", "jwks", "introspect", "me", "par", "session/end", "session/end/confirm", "session/end/success"]);

/** The label for a request: h3's matched pattern when it names one, else the path's shape. */
export function routeLabel(pathname: string, pattern?: string): string {
  if (pattern && !pattern.includes("*")) return pattern;
  if (pathname === "/api" || pathname.startsWith("/api/")) return apiLabel(pathname);
  if (pathname.startsWith("/oauth/")) return oauthLabel(pathname.slice("/oauth/".length));
  if (pathname.startsWith("/fediverse/")) return FEDIVERSE.find((m) => m.test.test(pathname))?.label ?? "/fediverse/*";
  return siteLabel(pathname);
}

function oauthLabel(rest: string): string {
  if (OAUTH_ENDPOINTS.has(rest)) return `/oauth/${rest}`;
  // An authorization resumed after consent (`/oauth/authorize/{uid}`), a registered client's own address.
  const [first, , more] = rest.split("/");
  if ((first === "authorize" || first === "register") && more === undefined) return `/oauth/${first}/:id`;
  return "/oauth/*";
}

/**
 * Paths whose segment after these words is a bearer secret: a reader's token (it never expires and
 * opens every town of the address), a resubscribe or operator sign-in link before it is used, a
 * local checkout session, and an order's id (its page is for whoever has the address). The log keeps
 * the rest: `/api/subscriptions/:token/cities/boise-idaho`. Any method, matched or not (a PUT falls to
 * the site's catch-all, an edge hit or a parser's refusal names no route), a slash written `%2F` too.
 */
const SECRET_SEGMENTS: Array<[RegExp, string]> = [
  [/^((?:\/|%2f)+api(?:\/|%2f)+(?:v1(?:\/|%2f)+)?subscriptions(?:\/|%2f)+)[^/]+/i, "$1:token"],
  [/^((?:\/|%2f)+(?:subscriptions|weekly|unsubscribe|resubscribe)(?:\/|%2f)+)[^/]+/i, "$1:token"],
  [/^((?:\/|%2f)+operator(?:\/|%2f)+sign-in(?:\/|%2f)+)[^/]+/i, "$1:token"],
  [/^((?:\/|%2f)+checkout(?:\/|%2f)+)[^/]+/i, "$1:session"],
  [/^((?:\/|%2f)+(?:admin(?:\/|%2f)+)?orders(?:\/|%2f)+)[^/]+/i, "$1:id"],
];

/** Route parameters that are secrets wherever a route names them (`/operator/:token`: the old desk links, an address and a MAC). */
const SECRET_PARAMS = new Set([":token", ":session"]);

/** The path as the request log keeps it: each secret replaced by its parameter's name, the rest as asked. */
export function loggedPath(pathname: string, pattern?: string): string {
  let path = pathname;
  const names = pattern?.split("/");
  const segments = path.split("/");
  if (names && names.length === segments.length && names.some((n) => SECRET_PARAMS.has(n))) {
    path = segments.map((s, i) => (SECRET_PARAMS.has(names[i]) ? names[i] : s)).join("/");
  }
  for (const [secret, name] of SECRET_SEGMENTS) path = path.replace(secret, name);
  return path;
}

function apiLabel(pathname: string): string {
  const unversioned = pathname.replace(/^\/api\/v1(?=\/|$)/, "/api");
  return OPERATIONS.find((m) => m.test.test(unversioned))?.label ?? "/api/**";
}

function siteLabel(pathname: string): string {
  if (pathname === "/") return "/";
  if (pathname.startsWith("/_astro/")) return "/_astro/*";
  const twin = pathname.endsWith(".md");
  const segments = (twin ? pathname.slice(0, -3) : pathname).slice(1).split("/");
  const md = twin ? ".md" : "";
  const hasExt = (s: string) => /\.[A-Za-z0-9]{1,8}$/.test(s);
  if (segments.length === 1) {
    const [one] = segments;
    if (SITE_PAGES.has(one)) return `/${one}${md}`;
    return hasExt(one) ? "/:file" : `/:slug${md}`;
  }
  if (segments.length === 2) {
    const [first, second] = segments;
    if (first === "states") return `/states/:state${md}`;
    if (DATE.test(second)) return `/:slug/:date${md}`;
    if (hasExt(second)) return "/:slug/:file";
  }
  return "other";
}
