import type { H3, H3Event } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { agentSkillsIndex, apiCatalog, apiCatalogLink, LINKSET_TYPE, robotsTxt, skill } from "../../../src/services/platform/discovery.ts";
import { AI_CATALOG_TYPE, aiCatalog, mcpCatalog, SERVER_CARD_TYPE, serverCard } from "../../../src/mcp/server-card.ts";
import { cachedResponse } from "../../http/caching.ts";
import { markdownTokens } from "../../http/negotiation.ts";
import { healthRoutes } from "./health.ts";

const DISCOVERY_CACHE = "public, max-age=300, s-maxage=3600";
/** Discovery documents are public and read by browser-based agents too. */
const OPEN = { "Access-Control-Allow-Origin": "*" };

/** The well-known discovery documents and robots.txt (spec section 4, "Discovery and format endpoints"). */
export function discoveryRoutes(app: H3, ctx: AppContext): void {
  const base = () => ctx.config.baseUrl;
  // GET and HEAD alike (createApp's `get` registers both; cachedResponse drops the body for HEAD).
  const read = (path: string, handler: (event: H3Event) => Response) => {
    app.get(path, handler);
  };

  read("/.well-known/api-catalog", (event) =>
    cachedResponse(event, JSON.stringify(apiCatalog(base()), null, 2), LINKSET_TYPE, DISCOVERY_CACHE, { ...OPEN, Link: apiCatalogLink(base()) }));

  read("/.well-known/agent-skills/index.json", (event) =>
    cachedResponse(event, JSON.stringify(agentSkillsIndex(ctx), null, 2), "application/json; charset=utf-8", DISCOVERY_CACHE, OPEN));

  read("/.well-known/agent-skills/:name/SKILL.md", (event) => {
    const found = skill(ctx, String(event.context.params?.name));
    if (!found) throw new AppError("not_found", `There is no agent skill at ${event.url.pathname}; see /.well-known/agent-skills/index.json.`);
    return cachedResponse(event, found.body, "text/markdown; charset=utf-8", DISCOVERY_CACHE, { ...OPEN, "X-Markdown-Tokens": String(markdownTokens(found.body)) });
  });

  // The MCP server card where the extension reserves it (the streamable-HTTP URL + /server-card) and
  // at the well-known path; CORS and caching as its discovery document asks (read-only, public).
  const CARD_HEADERS = { ...OPEN, "Access-Control-Allow-Methods": "GET", "Access-Control-Allow-Headers": "Content-Type, If-None-Match", "Access-Control-Expose-Headers": "ETag" };
  const card = (event: H3Event) => cachedResponse(event, JSON.stringify(serverCard(base()), null, 2), SERVER_CARD_TYPE, "public, max-age=3600", CARD_HEADERS);
  read("/mcp/server-card", card);
  read("/.well-known/mcp/server-card.json", card);
  // The MCP Catalog of the server-card extension's draft before it moved to the AI Catalog (kept for clients of that draft).
  read("/.well-known/mcp/catalog.json", (event) =>
    cachedResponse(event, JSON.stringify(mcpCatalog(base()), null, 2), "application/json", "public, max-age=3600", CARD_HEADERS));
  read("/.well-known/ai-catalog.json", (event) =>
    cachedResponse(event, JSON.stringify(aiCatalog(base()), null, 2), AI_CATALOG_TYPE, "public, max-age=3600", CARD_HEADERS));

  read("/robots.txt", (event) => cachedResponse(event, robotsTxt(base()), "text/plain; charset=utf-8", DISCOVERY_CACHE));

  // What load balancers and monitors ask: /livez and /readyz (never cached).
  healthRoutes(app, ctx);
}
