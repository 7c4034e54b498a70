import { McpServer, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { AppContext } from "../services/context.ts";
import type { Caller } from "../services/operations.ts";
import { registerPrompts, type PromptCatalog } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { registerTools, type ToolCatalog } from "./tools.ts";

export const MCP_SERVER_NAME = "citydaily";
export const MCP_SERVER_VERSION = "1.0.0";

/** The revisions served: 2026-07-28 (chosen through `server/discover`) and every 2025-era one the SDK speaks (`initialize`). */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28", ...SUPPORTED_PROTOCOL_VERSIONS];

const INSTRUCTIONS = [
  "citydaily is a free daily newsletter for every U.S. city. Cities are addressed by slug `{city}-{state-name}` (e.g. `st-louis-missouri`): find_place finds any U.S. place by name (typos forgiven) and says whether it has a newsletter yet; list_cities gives every city with one.",
  "Read with get_city, get_archive (one dated edition, markdown), search_archives and get_weather. subscribe_city sends a real email: only use it for an address whose owner asked.",
  "A failed call is a tool error whose text is a problem object: branch on `code` and follow `resolution`.",
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
};
const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } };

/**
 * One MCP server instance: the tools (one per operation with an `mcp` projection), resources and
 * prompts. A fresh instance serves each HTTP request (api/mcp.ts), so nothing is kept between
 * requests and any server process can answer any request; the tool catalog (`createToolCatalog`) is
 * made once per app.
 */
export function createMcpServer(ctx: AppContext, caller: Caller, tools: ToolCatalog, prompts: PromptCatalog): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, title: "citydaily", version: MCP_SERVER_VERSION, websiteUrl: `${ctx.config.baseUrl}/developers` },
    { instructions: INSTRUCTIONS, supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS], capabilities: CAPABILITIES, cacheHints: CACHE_HINTS },
  );
  registerTools(server, ctx, caller, tools);
  registerResources(server, ctx, caller);
  registerPrompts(server, ctx.config.baseUrl, prompts);
  return server;
}
