/**
 * How to add the MCP endpoint to common clients: shown by `GET /mcp` (HTML), the developer page and
 * its markdown twin, so the snippets are written once.
 */
export interface ClientSetup {
  client: string;
  where: string;
  language: "json" | "sh";
  snippet: string;
}

export function mcpClientSetups(url: string): ClientSetup[] {
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    { client: "Claude Code", where: "a terminal", language: "sh", snippet: `claude mcp add --transport http citydaily ${url}` },
    { client: "Claude Desktop", where: "Settings > Connectors > Add custom connector, or claude_desktop_config.json (through mcp-remote)", language: "json", snippet: json({ mcpServers: { citydaily: { command: "npx", args: ["-y", "mcp-remote", url] } } }) },
    { client: "Cursor", where: "~/.cursor/mcp.json or .cursor/mcp.json", language: "json", snippet: json({ mcpServers: { citydaily: { url } } }) },
    { client: "VS Code (GitHub Copilot)", where: ".vscode/mcp.json", language: "json", snippet: json({ servers: { citydaily: { type: "http", url } } }) },
    { client: "Windsurf", where: "~/.codeium/windsurf/mcp_config.json", language: "json", snippet: json({ mcpServers: { citydaily: { serverUrl: url } } }) },
  ];
}

const mdLinkPlain = (text: string, href: string) => `[${text}](${href})`;

/** The MCP set-up as markdown (developers.md, docs). */
export function mcpSetupMarkdown(url: string, tools: ReadonlyArray<{ name: string; title: string; readOnly: boolean }>): string {
  return [
    `The MCP endpoint is \`${url}\` (streamable HTTP, stateless, no key). It speaks MCP 2025-11-25 and earlier (\`initialize\`) and 2026-07-28 (\`server/discover\`).`,
    "",
    `Clients that discover servers need only this site's address: its ${mdLinkPlain("AI catalog", `${new URL(url).origin}/.well-known/ai-catalog.json`)} lists the ${mdLinkPlain("server card", `${url}/server-card`)}, which names the endpoint.`,
    "",
    ...mcpClientSetups(url).flatMap((s) => [`**${s.client}** (${s.where}):`, "", "```" + s.language, s.snippet, "```", ""]),
    `Tools: ${tools.map((t) => `\`${t.name}\`${t.readOnly ? "" : " (writes)"}`).join(", ")}. Resources: the site overview, the OpenAPI description, the city directory, recent editions, this guide, and templates \`{slug}.md\` and \`{slug}/{date}.md\`. Prompts: \`brief_me_on_a_town\`, \`find_events_this_week\`, \`list_my_business\`.`,
    "",
    "A failed tool call is a tool error (`isError: true`) whose text is the same problem object as the HTTP API's, with a `resolution` written for MCP (the tool to call, the field to read, e.g. `retryAfter`): branch on `code`, follow `resolution`. `get_archive`, `get_city` and `get_listing_order` come with MCP Apps views for hosts that show them.",
  ].join("\n");
}
