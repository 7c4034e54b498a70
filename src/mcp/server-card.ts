import { MCP_PROTOCOL_VERSIONS, MCP_SERVER_NAME, MCP_SERVER_VERSION } from "./server.ts";

/**
 * Discovery of the MCP server without pasting its URL: an MCP Server Card (SEP-2127, the
 * `modelcontextprotocol/experimental-ext-server-card` extension; schema vendored in
 * test/fixtures/mcp-server-card) served at `<streamable-http-url>/server-card` (`/mcp/server-card`)
 * and at `/.well-known/mcp/server-card.json`, and the AI Catalog at `/.well-known/ai-catalog.json`
 * that advertises it. The card says what `server/discover` and `initialize` say once connected
 * (name, version, revisions), so a client that checks them finds no contradiction.
 */

export const SERVER_CARD_TYPE = "application/mcp-server-card+json";
export const AI_CATALOG_TYPE = "application/ai-catalog+json";
export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/** `citydaily.example` -> `example.citydaily`; an IP address or `localhost` stays as it is. */
function reverseDns(host: string): string {
  if (/^[\d.]+$/.test(host) || !host.includes(".")) return host;
  return host.split(".").reverse().join(".");
}

const hostOf = (base: string) => new URL(base).hostname.replace(/[^a-zA-Z0-9.-]/g, "-");

export function serverCard(base: string) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${reverseDns(hostOf(base))}/${MCP_SERVER_NAME}`,
    version: MCP_SERVER_VERSION,
    title: "citydaily",
    description: "A free daily newsletter for every U.S. city: read, search and subscribe; find any U.S. town.",
    websiteUrl: `${base}/developers#mcp`,
    remotes: [{ type: "streamable-http", url: `${base}/mcp`, supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS] }],
  };
}

/** The AI Catalog of the site: one entry, the server card, by URL (the card is not repeated inline). */
export function aiCatalog(base: string) {
  return {
    specVersion: "1.0",
    entries: [{ identifier: `urn:air:${hostOf(base)}:mcp:${MCP_SERVER_NAME}`, type: SERVER_CARD_TYPE, url: `${base}/mcp/server-card` }],
  };
}

/**
 * The MCP Catalog at `/.well-known/mcp/catalog.json`, as the extension's discovery draft specified it
 * (`specVersion: "draft"`, entries of the AI Catalog's shape) before it adopted the AI Catalog (commit
 * 1491bd2); its entries are the AI Catalog's, so the two never disagree.
 */
export function mcpCatalog(base: string) {
  return { specVersion: "draft", entries: aiCatalog(base).entries };
}
