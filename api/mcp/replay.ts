import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { LRUCache } from "lru-cache";
import type { AppContext } from "../../src/services/platform/context.ts";
import { nextCommerceDueCached } from "../../src/services/commerce/listings.ts";
import { createResponseCache } from "../../src/services/platform/response-cache.ts";
import { dataVersionOfThisTurn } from "../../src/services/platform/data-version.ts";
import type { ToolCatalog } from "../../src/mcp/tools.ts";

/**
 * Answers the MCP requests that repeat, as the SDK answered them the first time, without building a
 * server for them. The SDK wants a fresh server per request (registering every tool, resource and
 * prompt, then re-serialising a 46 KB tools/list): for a stateless 2025-era request that lists, or
 * that calls a read tool whose answer is still good, that is all the request costs. So the first
 * answer's `result` is kept as JSON text and replayed with the new request's `id`, as
 * `application/json` (a streamable-HTTP server may answer a POST with JSON or SSE, at its choice).
 *
 * - Lists (tools, resources, templates, prompts) change only with a deploy: kept for the app's life.
 * - Calls of read tools are kept exactly as the tool's own response cache keeps them (good while the
 *   database is unchanged and the clock has not passed the next second or listing due time), so a
 *   new subscriber shows in the next get_city.
 * - Writes, errors, notifications, progress requests, 2026-07-28 requests (whose results carry
 *   per-request metadata) and anything unusual go to the SDK every time.
 */
const LEGACY = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);
const LISTS = new Set(["tools/list", "resources/list", "resources/templates/list", "prompts/list"]);

interface Message { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: unknown; cursor?: unknown } }

export interface McpReplay {
  /** The key a request is kept under, or undefined when it is never replayed. */
  keyOf(version: string | null, message: unknown): string | undefined;
  /** The kept response to a request with this key, if any. */
  answer(key: string, id: unknown): Response | undefined;
  /** The same, as the JSON-RPC response's text (api/mcp/front.ts writes it before h3). */
  body(key: string, id: unknown): string | undefined;
  /** The data version to note before the SDK runs a request (a write meanwhile makes it unkeepable). */
  version(): string;
  /** Keeps the SDK's response (read from a clone, after it was sent) when it is a success. */
  learn(key: string, response: Response, versionBefore: string): void;
}

export function createMcpReplay(ctx: AppContext, catalog: ToolCatalog): McpReplay {
  const lists = new LRUCache<string, string>({ max: 200 });
  const calls = createResponseCache<{ result: string }>(ctx);
  const readTools = new Set(catalog.tools.filter(({ op }) => catalog.reads.keeps(op) && !op.rateLimit && op.auth !== "admin").map(({ op }) => op.mcp.tool));
  const base = () => ctx.config.baseUrl;

  const body = (key: string, id: unknown) => {
    const result = key.startsWith("list ") ? lists.get(key) : calls.get(key)?.result;
    return result === undefined ? undefined : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  };

  return {
    keyOf(version, message) {
      if (version === null || !LEGACY.has(version) || message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
      const m = message as Message;
      if (m.jsonrpc !== "2.0" || (typeof m.id !== "string" && typeof m.id !== "number") || typeof m.method !== "string") return undefined;
      if (m.params !== undefined && (typeof m.params !== "object" || m.params === null || m.params._meta !== undefined)) return undefined;
      if (LISTS.has(m.method)) return `list ${base()} ${version} ${m.method} ${JSON.stringify(m.params?.cursor ?? null)}`;
      if (m.method === "tools/call" && typeof m.params?.name === "string" && readTools.has(m.params.name)) {
        return `call ${base()} ${version} ${m.params.name} ${JSON.stringify(m.params.arguments ?? {})}`;
      }
      return undefined;
    },
    body,
    answer(key, id) {
      const text = body(key, id);
      if (text === undefined) return undefined;
      return new Response(text, {
        status: 200, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
      });
    },
    // Read once per turn for other connections' commits: a commit since then makes the fresh version
    // read when keeping differ, so the answer is not kept (never kept stale). A full read here was a
    // tenth of a call's CPU.
    version: () => dataVersionOfThisTurn(ctx),
    learn(key, response, versionBefore) {
      if (response.status !== 200) return;
      void response.text().then((text) => {
        const result = resultOf(text, response.headers.get("content-type") ?? "");
        if (result === undefined || (result as { isError?: unknown }).isError) return;
        if (key.startsWith("list ")) lists.set(key, JSON.stringify(result));
        else calls.set(key, versionBefore, { result: JSON.stringify(result) }, nextCommerceDueCached(ctx));
      }, () => {});
    },
  };
}

/** The `result` of the one JSON-RPC response in a JSON or single-event SSE body. */
function resultOf(text: string, contentType: string): unknown {
  try {
    const json = contentType.startsWith("text/event-stream")
      ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("")
      : text;
    const message = JSON.parse(json) as { result?: unknown; error?: unknown };
    return message.error === undefined ? message.result : undefined;
  } catch {
    return undefined;
  }
}
