import { McpServer, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { EXTENSION_ID as APPS_EXTENSION_ID } from "@modelcontextprotocol/ext-apps/server";
import type { AppContext } from "../services/platform/context.ts";
import { APP_MIME_TYPE } from "./apps.ts";
import type { Caller } from "../services/operations/bindings.ts";
import { registerPrompts, type PromptCatalog } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { registerTools, type ToolCatalog } from "./tools.ts";
import { registerOperatorTools } from "./operator-tools.ts";
import type { OperatorCaller } from "../services/oauth/tokens.ts";

export const MCP_SERVER_NAME = "citydaily";
export const MCP_SERVER_VERSION = "1.0.0";

/** The revisions served: 2026-07-28 (chosen through `server/discover`) and every 2025-era one the SDK speaks (`initialize`). */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28", ...SUPPORTED_PROTOCOL_VERSIONS];

const INSTRUCTIONS = [
  "citydaily is a free daily newsletter for every U.S. town. Towns are addressed by slug `{city}-{state-name}` (e.g. `st-louis-missouri`): find_place finds any of 32,000 U.S. places by name (typos forgiven) and says whether each has a newsletter (`hasNewsletter`) and takes listings (`sellsListings`); list_cities gives every town with a newsletter.",
  "get_place answers any place's facts: time zone, today's local date, weekday and time there (count \"today\" and \"next Saturday\" from these, not your own clock), sunrise and sunset, holidays, census figures.",
  "Only towns with a newsletter have editions: get_city, get_archive (the latest edition, or one date's; markdown), search_archives and get_weather; for any other place they answer `city_not_found` with `reason: no_newsletter`. A town's newsletter starts with its first subscriber: subscribe_city sends a real email, so only use it for the address of a reader who asked to subscribe themselves.",
  "Listings (create_event_listing, create_business_listing) need a town that sells them; any other is `conflict` with `reason: not_selling`.",
  "A failed call is a tool error whose text is a problem object: branch on `code` (and `reason`), read `detail`, follow `resolution`. Arguments are checked strictly: an unknown one is refused, naming the tool's arguments.",
].join(" ");

/**
 * The lists (tools, resources, templates, prompts) and the server's description change only with a
 * deploy, so 2026-07-28 clients may keep them an hour; no `listChanged` is advertised, since a
 * stateless server never sends those notifications.
 */
const LIST_TTL = { ttlMs: 60 * 60 * 1000, cacheScope: "public" } as const;
const CACHE_HINTS = {
  "server/discover": LIST_TTL,
  "tools/list": LIST_TTL,
  "prompts/list": LIST_TTL,
  "resources/list": LIST_TTL,
  "resources/templates/list": LIST_TTL,
  // Other reads (llms.txt, the live city directory, a town's page) may be a minute old; dated
  // editions and app views say longer themselves (src/mcp/resources.ts).
  "resources/read": { ttlMs: 60 * 1000, cacheScope: "public" as const },
};
// The MCP Apps extension (SEP-1865): three tools come with `ui://` views (src/mcp/apps.ts).
const CAPABILITIES = {
  tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false },
  extensions: { [APPS_EXTENSION_ID]: { mimeTypes: [APP_MIME_TYPE] } },
};

/**
 * One MCP server instance: the tools (one per operation with an `mcp` projection), resources and
 * prompts. A fresh instance serves each HTTP request (api/mcp/endpoint.ts), so nothing is kept between
 * requests and any server process can answer any request; the tool catalog (`createToolCatalog`) is
 * made once per app.
 */
export function createMcpServer(ctx: AppContext, caller: Caller, tools: ToolCatalog, prompts: PromptCatalog, operator?: OperatorCaller, call?: string): McpServer {
  // An operator's list holds their own tools: kept by their client only.
  const cacheHints = operator ? { ...CACHE_HINTS, "tools/list": { ...LIST_TTL, cacheScope: "private" as const } } : CACHE_HINTS;
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: "citydaily", version: MCP_SERVER_VERSION, websiteUrl: `${ctx.config.baseUrl}/developers` },
    { instructions: INSTRUCTIONS, supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS], capabilities: CAPABILITIES, cacheHints },
  );
  // `server/discover` names every revision served, as the server card and the -32022 error do: the
  // SDK lists only the modern ones (2025-era clients negotiate through `initialize`), which left a
  // scanner comparing the card with discover seeing two answers. `_ondiscover` is the SDK's one
  // builder of that result (not public API: checked by test/integration/mcp-transport.test.ts).
  const inner = server.server as unknown as { _ondiscover?: () => Record<string, unknown> };
  const discover = inner._ondiscover?.bind(inner);
  if (discover) inner._ondiscover = () => ({ ...discover(), supportedVersions: [...MCP_PROTOCOL_VERSIONS] });
  registerTools(server, ctx, caller, tools, call);
  // The operator's tools, for a request carrying their access token (api/mcp/endpoint.ts checked it).
  if (operator) registerOperatorTools(server, ctx, operator);
  // A server made for one `tools/call` (`call`: the tool it names) needs only that tool: registering
  // the rest, the resources and the prompts was a tenth of a call's CPU (docs/performance.md).
  if (call !== undefined) return server;
  registerResources(server, ctx, caller);
  registerPrompts(server, ctx.config.baseUrl, prompts);
  return server;
}
