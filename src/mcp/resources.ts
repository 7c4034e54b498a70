import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate, type McpServer, type ReadResourceResult } from "@modelcontextprotocol/server";
import { registerAppResource } from "@modelcontextprotocol/ext-apps/server";
import { openApiDocument } from "../contract/openapi.ts";
import { APP_MIME_TYPE, APP_VIEWS, appViewHtml, type AppViewName } from "./apps.ts";
import { operationsById } from "../contract/operations/index.ts";
import { problemBody } from "../contract/problems.ts";
import { AppError } from "../core/errors.ts";
import { isWellFormedSlug } from "../contract/slug.ts";
import type { AppContext } from "../services/platform/context.ts";
import { admit, runOperation, type Caller } from "../services/operations/bindings.ts";
import { placeTwin, withLocalClock } from "../services/places/place-answer.ts";
import { completeSlug } from "../services/places/places.ts";
import { normalSlug } from "./tools.ts";
import { readPublishedFile } from "../services/site/files.ts";

/**
 * Resources are named by the https URL the same document has on the site, so a model can cite or
 * fetch them. Published twins (llms.txt, feed.md, developers.md, {slug}.md) are read from the live
 * site exactly as the web server serves them; the others come from the contract and the operations.
 */

const MARKDOWN = "text/markdown";

/**
 * How long a 2026-07-28 client may keep a read (`ttlMs`, SEP-2549): a dated edition never changes once
 * published, a `ui://` view only with a deploy; other reads follow the server's default (CACHE_HINTS).
 */
const EDITION_TTL = { ttlMs: 24 * 60 * 60 * 1000, cacheScope: "public" } as const;
const VIEW_TTL = { ttlMs: 60 * 60 * 1000, cacheScope: "public" } as const;
const JSON_TYPE = "application/json";

function published(ctx: AppContext, uri: URL, rel: string, mimeType: string): ReadResourceResult {
  const text = readPublishedFile(ctx, rel);
  if (text === undefined) throw new ResourceNotFoundError(uri.href, `${uri.href} is not published (yet).`);
  return { contents: [{ uri: uri.href, mimeType, text }] };
}

/** An operation's answer as a resource; its AppError becomes a JSON-RPC error carrying the problem. */
async function fromOperation(ctx: AppContext, caller: Caller, uri: URL, id: keyof typeof operationsById, input: object, as: "json" | "markdown"): Promise<ReadResourceResult> {
  const op = operationsById[id];
  try {
    admit(ctx, op, caller);
    const reply = await runOperation(ctx, op, input, caller);
    const text = as === "markdown" ? reply.options.markdown ?? "" : JSON.stringify(reply.data, null, 2);
    return { contents: [{ uri: uri.href, mimeType: as === "markdown" ? MARKDOWN : JSON_TYPE, text }] };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const detail = error.mcpDetail ?? error.message;
    // No such town or edition: the resource does not exist (resource-not-found, `data: {uri}`; api/mcp/endpoint.ts gives 2025-era clients -32002).
    if (error.code === "city_not_found" || error.code === "edition_not_found") throw new ResourceNotFoundError(uri.href, `${error.code}: ${detail}`);
    const problem = problemBody(ctx.config.baseUrl, error.code, detail, undefined, error.issues, "mcp", error.extra);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${error.code}: ${detail}`, problem);
  }
}

export function registerResources(server: McpServer, ctx: AppContext, caller: Caller): void {
  const base = ctx.config.baseUrl;
  // Listed in this order (resources/list keeps registration order).
  server.registerResource("overview", `${base}/llms.txt`, {
    title: "Site overview (llms.txt)", mimeType: MARKDOWN,
    description: "What citydaily is, how its pages, markdown twins, feeds and API fit together, with links.",
  }, (uri) => published(ctx, uri, "llms.txt", MARKDOWN));
  let openapi: string | undefined;
  server.registerResource("openapi", `${base}/openapi.json`, {
    title: "OpenAPI 3.1 description of the JSON API", mimeType: JSON_TYPE,
    description: "Every public endpoint with its parameters, responses, examples and problem codes.",
  }, (uri) => ({ contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: (openapi ??= JSON.stringify(openApiDocument(base))) }] }));
  server.registerResource("city-directory", `${base}/api/cities`, {
    title: "City directory (live)", mimeType: JSON_TYPE,
    description: "Every town with a newsletter, grouped by state, with its slug: the same answer as list_cities.",
  }, (uri) => fromOperation(ctx, caller, uri, "listCities", {}, "json"));
  server.registerResource("recent-editions", `${base}/feed.md`, {
    title: "Recent editions", mimeType: MARKDOWN,
    description: "The 30 most recently published editions across all cities, newest first, with links to each one's markdown.",
  }, (uri) => published(ctx, uri, "feed.md", MARKDOWN));
  server.registerResource("developer-docs", `${base}/developers.md`, {
    title: "Developer guide", mimeType: MARKDOWN,
    description: "The API in brief: endpoints, slugs, versioning, every error code, MCP set-up.",
  }, (uri) => published(ctx, uri, "developers.md", MARKDOWN));

  server.registerResource("edition", new ResourceTemplate(`${base}/{slug}/{date}.md`, { list: undefined, complete: { slug: (v) => completeSlug(ctx, v) } }), {
    title: "One dated edition (markdown)", mimeType: MARKDOWN,
    description: "A city's newsletter of one date: `slug` as in the city directory, `date` YYYY-MM-DD in the city's own timezone.",
  }, async (uri, vars) => ({ ...(await fromOperation(ctx, caller, uri, "getArchive", { slug: String(normalSlug(String(vars.slug))), date: String(vars.date) }, "markdown")), ...EDITION_TTL }));
  server.registerResource("city", new ResourceTemplate(`${base}/{slug}.md`, { list: undefined, complete: { slug: (v) => completeSlug(ctx, v) } }), {
    title: "A town's page (markdown)", mimeType: MARKDOWN,
    description: "Any U.S. place's page, its time zone and today's local date in the front matter. A town with a newsletter: the latest edition, the archive index and the census figures. Any other place: its facts today (local date and time, sunrise and sunset, holidays, census figures) and how its newsletter starts.",
  }, (uri, vars) => {
    const slug = String(normalSlug(String(vars.slug)));
    const text = isWellFormedSlug(slug) ? readPublishedFile(ctx, `${slug}.md`) : undefined;
    if (text !== undefined) return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text: withLocalClock(ctx, slug, text) }] };
    const twin = placeTwin(ctx, slug);
    if (twin === undefined) throw new ResourceNotFoundError(uri.href, `No U.S. place has the slug "${slug.slice(0, 130)}"; find_place finds any place's slug.`);
    return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text: twin }] };
  });
  // The MCP Apps views of get_archive, get_city and get_listing_order (src/mcp/apps.ts).
  for (const [name, view] of Object.entries(APP_VIEWS) as Array<[AppViewName, (typeof APP_VIEWS)[AppViewName]]>) {
    registerAppResource(server, `view-${name}`, view.uri, { title: view.title, description: view.description, _meta: { ui: { csp: {}, prefersBorder: true } } },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: APP_MIME_TYPE, text: appViewHtml(name, base), _meta: { ui: { csp: {}, prefersBorder: true } } }], ...VIEW_TTL }));
  }
}
