import type { Operation } from "../../contract/operation.ts";
import { operations } from "../../contract/operations/index.ts";

export type ToolOperation = Operation & { mcp: NonNullable<Operation["mcp"]> };

/**
 * The public operations that are MCP tools, in a deterministic order (by tool name). Pure (contract
 * only), so the developer docs and the set-up page can list the tools without loading the services.
 */
export function toolOperations(ops: readonly Operation[] = operations): ToolOperation[] {
  return ops
    .filter((op): op is ToolOperation => op.mcp !== undefined && op.auth !== "admin" && (op.visibility ?? "public") === "public")
    .sort((a, b) => a.mcp.tool.localeCompare(b.mcp.tool));
}

/**
 * The tool a JSON-RPC body calls, when it is one `tools/call` request (not a batch): the server made
 * for it needs that tool alone (src/mcp/server.ts).
 */
export function calledTool(body: unknown): string | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; id?: unknown; params?: { name?: unknown } | null };
  if (message.method !== "tools/call" || message.id === undefined) return undefined;
  return typeof message.params?.name === "string" ? message.params.name : undefined;
}
