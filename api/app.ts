import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { H3, toNodeHandler, type H3Event } from "h3";
import { openApiDocument } from "../src/contract/openapi.ts";
import { AppError, storageFullError } from "../src/core/errors.ts";
import { readPrecompressed } from "../src/publish/precompressed.ts";
import { siteDirs } from "../src/publish/site-dir.ts";
import type { AppContext } from "../src/services/platform/context.ts";
import { compression } from "./http/compression.ts";
import { viewPage } from "./http/html-page.ts";
import { createEdgeCache, keepAtEdge, type EdgeCache } from "./http/edge-cache.ts";
import { createMcpFront, type McpFront } from "./mcp/front.ts";
import { baseSecurityHeaders, contentSecurityPolicy } from "./http/security-headers.ts";
import { apiHeaders, isApi, preflight } from "./http/cors.ts";
import { mountOperations } from "./http/operation-router.ts";
import { problemResponse } from "./http/problem.ts";
import { loggedPath, routeLabel } from "./http/route-label.ts";
import { observeRequest } from "../src/services/platform/metrics-registry.ts";
import { apiIndex, pageDiscoveryLinks } from "../src/services/platform/discovery.ts";
import { cachedResponse } from "./http/caching.ts";
import { mcpRoutes } from "./mcp/endpoint.ts";
import { advertiseRoutes } from "./routes/commerce/advertise.ts";
import { calendarRoutes } from "./routes/site/calendar.ts";
import { fediverseRoutes } from "./routes/fediverse/routes.ts";
import { orderPageRoutes } from "./routes/commerce/order-page.ts";
import { leaseRoutes } from "./routes/commerce/lease.ts";
import { checkoutPageRoutes } from "./routes/commerce/checkout-pages.ts";
import { discoveryRoutes } from "./routes/site/discovery.ts";
import { embedRoutes } from "./routes/site/embed.ts";
import { goRoutes } from "./routes/readers/go.ts";
import { operatorRoutes } from "./routes/operator/routes.ts";
import { oauthRoutes } from "./routes/oauth/routes.ts";
import { mailWebhookRoutes } from "./routes/mail/webhooks.ts";
import { paymentWebhookRoutes } from "./routes/commerce/payment-webhook.ts";
import { siteRoutes } from "./routes/site/site-files.ts";
import { faviconRoutes } from "./routes/site/favicon.ts";
import { placesPageRoutes } from "./routes/site/places-page.ts";
import { subscribeFormRoutes } from "./routes/readers/subscribe-form.ts";
import { unsubscribeRoutes } from "./routes/readers/unsubscribe.ts";

const REQUEST_ID = /^[\w.-]{1,100}$/;

/** Paths that name a city-keyed resource without the slug. */
const SLUGLESS_PATHS = ["/api/city", "/api/facts", "/api/weather", "/api/archive"];

/** Paths that machines call (answered problem+json whatever happens); every other path is a person's page. */
const forMachines = (path: string) => isApi(path) || path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/webhooks/") || path.startsWith("/.well-known/");

/**
 * A full disk on a person's page (the HTML subscribe form, the Pay button): the same 503 and
 * Retry-After as the API's, as a page in the site's layout that says in words what to do.
 */
async function storageFullPage(ctx: AppContext, full: AppError, instance: string): Promise<Response> {
  const retry = full.headers?.["Retry-After"] ?? "60";
  try {
    return await viewPage(ctx, 503, "site/refusal", { kind: "storage-full" }, { headers: { "Retry-After": retry } });
  } catch {
    return problemResponse(ctx.config.baseUrl, full.code, full.message, { instance, headers: full.headers });
  }
}

/** The request's path as logs keep it: without the secret some paths carry (api/http/route-label.ts). */
const pathOf = (event: H3Event) => loggedPath(event.url.pathname, event.context.matchedRoute?.route);

/** Turns anything thrown while handling a request into its problem+json response (a person's page for a full disk). */
export function errorResponse(ctx: AppContext, event: H3Event, error: unknown): Response | Promise<Response> {
  const instance = event.url.pathname;
  if (error instanceof AppError) {
    return problemResponse(ctx.config.baseUrl, error.code, error.message, { instance, issues: error.issues, headers: error.headers, extra: error.extra });
  }
  const status = (error as { status?: number }).status;
  if (status === 400) return problemResponse(ctx.config.baseUrl, "validation_error", "The request URL is malformed.", { instance, issues: [{ path: "url", message: "malformed percent-encoding" }] });
  if (status === 413) return problemResponse(ctx.config.baseUrl, "payload_too_large", "The request body is too large.", { instance });
  // h3's own routing answers (a path or method no route takes) are client errors, not server faults.
  if (status === 404) return problemResponse(ctx.config.baseUrl, isApi(instance) ? "endpoint_not_found" : "not_found", `Nothing at ${instance}.`, { instance });
  if (status === 405) return problemResponse(ctx.config.baseUrl, "method_not_allowed", `${event.req.method} is not allowed on ${instance}.`, { instance });
  const full = storageFullError(error);
  if (full) {
    // The transaction was rolled back: nothing half-stored. The operator must free space; clients retry.
    ctx.log.error({ alert: "storage_full", requestId: event.context.requestId, path: pathOf(event), error: (error as Error).message }, "the disk under the database is full; writes are refused until there is room");
    if (!forMachines(instance)) return storageFullPage(ctx, full, instance);
    return problemResponse(ctx.config.baseUrl, full.code, full.message, { instance, headers: full.headers });
  }
  if (isClientGone(error)) {
    // The client went away mid-body: not a server fault, and nobody is left to answer.
    ctx.log.info({ requestId: event.context.requestId, path: pathOf(event), error: (error as Error).message }, "request aborted by the client");
    return problemResponse(ctx.config.baseUrl, "validation_error", "The request body was cut off.", { instance, issues: [{ path: "body", message: "incomplete: the client closed the connection" }] });
  }
  ctx.log.error({ err: error, requestId: event.context.requestId, path: pathOf(event) }, "unhandled error");
  return problemResponse(ctx.config.baseUrl, "internal_error", "The server hit an unexpected error; it has been logged.", { instance });
}

/** A request body cut off because the client closed the connection (Node's "aborted", ECONNRESET). */
function isClientGone(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === "ECONNRESET" || e.code === "ECONNABORTED" || e.code === "ERR_STREAM_PREMATURE_CLOSE" || e.message === "aborted") return true;
  }
  return false;
}

/** Headers every answer carries (besides X-Request-Id), errors included. */
function finishHeaders(ctx: AppContext, headers: Headers, pathname: string): void {
  baseSecurityHeaders(headers, ctx.config.baseUrl);
  if (isApi(pathname)) apiHeaders(headers);
  // Pages advertise the API catalog (RFC 9727 section 3) and the MCP server card; the site adds each page's markdown twin.
  if (pathname === "/" || (!isApi(pathname) && (headers.get("content-type") ?? "").startsWith("text/html"))) {
    for (const link of pageDiscoveryLinks(ctx.config.baseUrl)) headers.append("Link", link);
  }
}

const requestIdOf = (incoming: string | null | undefined) => (incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID());

/**
 * Logs a request without the secret its path may carry, and times it under its route's pattern (a
 * town's page is `/:slug`), never its path. `pattern`: the route h3 matched, when it did.
 */
function logRequest(ctx: AppContext, requestId: string, method: string, path: string, status: number, startedAt: number, pattern?: string): void {
  const ms = performance.now() - startedAt;
  ctx.log.info({ requestId, method, path: loggedPath(path, pattern), status, ms: Math.round(ms * 10) / 10 }, "request");
  observeRequest(ctx.metrics, method, routeLabel(path, pattern), status, ms / 1000);
}

/**
 * The status the client got: a handler that answers on Node's response itself (the authorization
 * server: oidc-provider through fromNodeHandler) leaves h3 a stand-in 200, while the answer sent, a
 * refused refresh token's 400 say, is on the Node response, already written.
 */
function statusSent(response: Response, event: H3Event): number {
  const res = (event.runtime?.node as { res?: ServerResponse } | undefined)?.res;
  return res?.headersSent ? res.statusCode : response.status;
}

/** Every answer h3 makes: logged first (a Response.redirect()'s headers are immutable, and h3 drops what its hook throws), then finished. */
function answered(ctx: AppContext, response: Response, event: H3Event): void {
  logRequest(ctx, String(event.context.requestId), event.req.method, event.url.pathname, statusSent(response, event), Number(event.context.startedAt), event.context.matchedRoute?.route);
  response.headers.set("X-Request-Id", String(event.context.requestId));
  finishHeaders(ctx, response.headers, event.url.pathname);
}

/**
 * The HTTP app: every operation of the contract (api/http/operation-router.ts), the pages outside the API
 * (unsubscribe, the built site), and problem+json for everything that fails. `extend` lets a caller
 * (a test) add routes before the catch-alls; `edge` keeps finished answers of public reads
 * (api/http/edge-cache.ts).
 */
export function createApp(ctx: AppContext, extend?: (app: H3) => void, edge?: EdgeCache, mcpFront?: McpFront): H3 {
  const app = new H3({
    silent: true,
    onRequest(event) {
      event.context.requestId = requestIdOf(event.req.headers.get("x-request-id"));
      event.context.startedAt = performance.now();
    },
    onError: (error, event) => errorResponse(ctx, event, error.cause ?? error),
    onResponse: (response, event) => answered(ctx, response, event),
  });

  // HEAD wherever GET: every route registered with `get` answers HEAD too (Node drops the body).
  const get = app.get.bind(app);
  app.get = ((path: string, handler: Parameters<H3["get"]>[1], opts?: Parameters<H3["get"]>[2]) => {
    get(path, handler, opts);
    return app.head(path, handler, opts);
  }) as H3["get"];

  if (edge) app.use(edge.middleware);
  // Outermost first: compression sees the final page, security headers the uncompressed one.
  const site = siteDirs(ctx.config.dataDir);
  app.use(compression({ stored: (etag, encoding) => readPrecompressed(site, etag, encoding) }));
  app.use(contentSecurityPolicy());
  mountOperations(app, ctx);
  unsubscribeRoutes(app, ctx);
  subscribeFormRoutes(app, ctx);
  placesPageRoutes(app, ctx);
  faviconRoutes(app);
  paymentWebhookRoutes(app, ctx);
  mailWebhookRoutes(app, ctx);
  checkoutPageRoutes(app, ctx);
  advertiseRoutes(app, ctx);
  orderPageRoutes(app, ctx);
  leaseRoutes(app, ctx);
  operatorRoutes(app, ctx);
  mcpRoutes(app, ctx, oauthRoutes(app, ctx), mcpFront); // the operators' authorization server, and the tools it opens
  discoveryRoutes(app, ctx);
  embedRoutes(app, ctx);
  goRoutes(app, ctx);
  calendarRoutes(app, ctx);
  fediverseRoutes(app, ctx);
  extend?.(app);

  for (const path of SLUGLESS_PATHS) {
    const missing = (event: H3Event) => {
      if (event.req.method === "OPTIONS") return preflight("GET, HEAD, OPTIONS");
      throw new AppError("missing_slug", `${event.url.pathname} needs a city slug: ${path}/{slug}.`);
    };
    app.all(path, missing);
    app.all(path.replace(/^\/api\//, "/api/v1/"), missing);
  }

  let openapi: string | undefined;
  // Cached and open to every origin, like the API's reads (browser-based tools load it).
  app.get("/openapi.json", (event) => {
    keepAtEdge(event);
    return cachedResponse(event, (openapi ??= JSON.stringify(openApiDocument(ctx.config.baseUrl))), "application/json; charset=utf-8", "public, max-age=300, s-maxage=3600", { "Access-Control-Allow-Origin": "*" });
  });

  app.all("/api/**", (event) => {
    if (event.req.method === "OPTIONS") return preflight("GET, HEAD, POST, OPTIONS");
    throw new AppError("endpoint_not_found", `There is no API endpoint ${event.req.method} ${event.url.pathname}.`);
  });
  // The API catalog's anchors answer: where the description, documentation and status are.
  for (const anchor of ["/api", "/api/v1"]) {
    app.get(anchor, (event) => cachedResponse(event, JSON.stringify(apiIndex(ctx.config.baseUrl, ctx.config.baseUrl + anchor), null, 2), "application/json; charset=utf-8", "public, max-age=300", {
      Link: [`<${ctx.config.baseUrl}/openapi.json>; rel="service-desc"; type="application/vnd.oai.openapi+json;version=3.1"`, `<${ctx.config.baseUrl}/developers>; rel="service-doc"`, `<${ctx.config.baseUrl}/api/status>; rel="status"`].join(", "),
    }));
  }
  app.all("/api", () => {
    throw new AppError("endpoint_not_found", "There is no API endpoint at /api for this method; see /openapi.json.");
  });
  // The built site answers every other GET/HEAD (specific routes above still win).
  siteRoutes(app, ctx);
  return app;
}

/** The node:http request listener: kept answers straight from the edge cache, the rest through the app. */
export function createRequestListener(ctx: AppContext, extend?: (app: H3) => void): (req: IncomingMessage, res: ServerResponse) => void {
  const edgeOptions = {
    finish: (headers: Headers, pathname: string) => finishHeaders(ctx, headers, pathname),
    log: (requestId: string, method: string, path: string, status: number, startedAt: number) => logRequest(ctx, requestId, method, path, status, startedAt),
    requestId: requestIdOf,
  };
  const edge = createEdgeCache(ctx, edgeOptions);
  const mcpFront = createMcpFront(() => ctx.config.baseUrl, edgeOptions);
  const app = toNodeHandler(createApp(ctx, extend, edge, mcpFront));
  return (req, res) => {
    if (edge.serve(req, res)) return;
    // A repeated public MCP read, answered before h3 as the edge answers HTTP ones.
    if (mcpFront.takes(req)) mcpFront.serve(req, res, () => void app(req, res));
    else void app(req, res);
  };
}
