import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/**
 * The two official clients the MCP endpoint must serve: the v1 SDK's (2025-11-25 and earlier,
 * `initialize`) and the v2 SDK's pinned to 2026-07-28 (`server/discover`, per-request `_meta`).
 * Both are used through the methods they share (listTools, callTool, readResource, getPrompt...).
 */
export type AnyClient = V1Client | V2Client;
export type Revision = "2025-11-25" | "2026-07-28";

export interface Connected {
  client: AnyClient;
  revision: Revision;
  close: () => Promise<void>;
}

export async function connectV1(url: string, fetchImpl?: typeof fetch): Promise<Connected> {
  const client = new V1Client({ name: "citydaily-test-v1", version: "1.0.0" });
  const transport = new V1Transport(new URL(url), fetchImpl ? { fetch: fetchImpl } : undefined);
  await client.connect(transport);
  return { client, revision: "2025-11-25", close: () => client.close() };
}

export async function connectV2(url: string, fetchImpl?: typeof fetch): Promise<Connected> {
  const client = new V2Client({ name: "citydaily-test-v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new V2Transport(new URL(url), fetchImpl ? { fetch: fetchImpl } : undefined);
  await client.connect(transport);
  return { client, revision: "2026-07-28", close: () => client.close() };
}

export const CLIENTS: Array<[Revision, (url: string, fetchImpl?: typeof fetch) => Promise<Connected>]> = [
  ["2025-11-25", connectV1],
  ["2026-07-28", connectV2],
];
