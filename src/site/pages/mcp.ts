/** `GET /mcp` from a browser (api/mcp/endpoint.ts -> src/pages/on-request/mcp/setup.astro). */
export interface McpSetupView {
  url: string;
  tools: Array<{ tool: string; title: string; writes: boolean }>;
  /** How to add the server to common MCP clients (src/core/mcp/setup.ts). */
  clients: Array<{ client: string; where: string; snippet: string }>;
}

declare module "./on-request.ts" {
  interface OnRequestViews {
    "mcp/setup": McpSetupView;
  }
}
