import { allOperations } from "../src/contract/operations/index.ts";

// The `route` label of the request-duration histogram: the route's pattern, never the path itself.
// 32,000 towns must stay one series (`/:slug`), not 32,000; a path nothing knows is one label too.

/** The site's pages with a fixed name (anything else one segment long is a town). */
const SITE_PAGES = new Set(["cities", "states", "developers", "advertise", "places", "subscribe", "listing-policy", "404"]);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The contract's operations as matchers: `/api/city/{slug}` answers `/api/city/:slug`. */
function operationMatchers(): Array<{ test: RegExp; label: string }> {
  const seen = new Set<string>();
  const out: Array<{ test: RegExp; label: string }> = [];
  for (const op of allOperations) {
    const label = op.path.replace(/\{(\w+)\}/g, ":$1");
    if (seen.has(label)) continue;
    seen.add(label);
    const source = op.path.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("[^/]+");
    out.push({ test: new RegExp(`^${source}$`), label });
  }
  return out;
}

/** Built once from the contract, never changed. */
const OPERATIONS = operationMatchers();

/** The label for a request: h3's matched pattern when it names one, else the path's shape. */
export function routeLabel(pathname: string, pattern?: string): string {
  if (pattern && !pattern.includes("*")) return pattern;
  if (pathname === "/api" || pathname.startsWith("/api/")) return apiLabel(pathname);
  return siteLabel(pathname);
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
