import { AsyncLocalStorage } from "node:async_hooks";
import {
  createMcpHandler, isLegacyRequest, SUPPORTED_PROTOCOL_VERSIONS, WebStandardStreamableHTTPServerTransport, type McpServer,
} from "@modelcontextprotocol/server";
import type { H3, H3Event } from "h3";
import { BODY_LIMIT_BYTES } from "../../src/contract/operation.ts";
import { createMcpServer, MCP_PROTOCOL_VERSIONS } from "../../src/mcp/server.ts";
import { mcpClientSetups } from "../../src/core/mcp/setup.ts";
import { calledTool, toolOperations } from "../../src/core/mcp/catalog.ts";
import { createPromptCatalog } from "../../src/mcp/prompts.ts";
import { createToolCatalog } from "../../src/mcp/tools.ts";
import { completeSlug } from "../../src/services/places/places.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import type { Caller } from "../../src/services/operations/bindings.ts";
import { readBodyText } from "../http/body.ts";
import { clientAddress } from "../http/client-address.ts";
import { viewPage } from "../http/html-page.ts";
import { mcpOriginRefusal } from "./origins.ts";
import { createMcpReplay } from "./replay.ts";
import type { McpFront } from "./front.ts";
import { mcpAuthorization } from "./auth.ts";
import type { OAuthServer } from "../../src/services/oauth/provider.ts";
import type { OperatorCaller } from "../../src/services/oauth/tokens.ts";

/** MCP answers a request with a JSON-RPC error (not problem+json): that is what its clients read. */
function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}

/** The JSON-RPC id of a request body, when it has a usable one (a body that is not JSON has none). */
function requestId(text: string): string | number | undefined {
  try {
    const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
    return typeof id === "string" || typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An MCP-Protocol-Version this server does not speak: `-32022` with the versions it does, as the
 * 2026-07-28 revision specifies (basic/versioning), answered to the request's own `id` when it has one.
 */
function unsupportedVersion(requested: string, id: string | number | undefined, supported: readonly string[]): Response {
  const error = { code: -32022, message: "Unsupported protocol version", data: { supported: [...supported], requested: requested.slice(0, 40) } };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error }), {
    status: 400, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}

const LEGACY_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * A `resources/read` miss as each revision specifies it: the SDK answers `-32602` with `data: {uri}`
 * on every revision (the 2026-07-28 rule); 2025-11-25 and earlier specify `-32002` (server/resources,
 * "Error Handling"), so a 2025-era client gets that code, with the same data.
 */
async function legacyResourceNotFound(response: Response): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  const json = type.startsWith("text/event-stream") ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("") : text;
  let message: { error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
  try {
    message = JSON.parse(json) as typeof message;
  } catch {
    message = undefined;
  }
  const data = message?.error?.data as Record<string, unknown> | undefined;
  if (!message?.error || message.error.code !== -32602 || typeof data?.uri !== "string") return new Response(text, response);
  message.error.code = -32002;
  return new Response(JSON.stringify(message), { status: response.status, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}

/**
 * A 2025-era request answered as one JSON body (the streamable HTTP transport allows either JSON or an
 * SSE stream): the SDK's stateless legacy leg always streams, and a stream is never compressed, so a
 * v1 client's first `tools/list` travelled as 51 KB of SSE where brotli sends under a quarter. The same
 * server from the same factory, on the SDK's own transport with `enableJsonResponse`; nothing is kept.
 * A stateless server sends nothing unasked during a request, so a stream would carry only the answer.
 */
async function answerLegacyAsJson(server: McpServer, request: Request, parsedBody: unknown, onerror: (err: Error) => void): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: BODY_LIMIT_BYTES });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, { parsedBody });
  } catch (err) {
    onerror(err instanceof Error ? err : new Error(String(err)));
    return jsonRpcError(500, -32603, "Internal error.");
  } finally {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  }
}


/** `GET /mcp` from a browser or curl: the endpoint and how to add it to common MCP clients, in the site's layout. */
function setupPage(ctx: AppContext): Promise<Response> {
  const url = `${ctx.config.baseUrl}/mcp`;
  const tools = toolOperations().map((op) => ({ tool: op.mcp.tool, title: op.mcp.title, writes: !op.mcp.annotations.readOnlyHint }));
  // A public page (unlike the other on-request pages, which carry tokens): cacheable and indexable.
  return viewPage(ctx, 200, "mcp/setup", { url, tools, clients: mcpClientSetups(url) }, {
    headers: { "Cache-Control": "public, max-age=300", "Referrer-Policy": "strict-origin-when-cross-origin", "X-Robots-Tag": "all" },
  });
}

/** A GET that is not an MCP client opening an SSE stream (a browser, curl) gets the set-up page. */
const wantsPage = (event: H3Event) => {
  const accept = event.req.headers.get("accept") ?? "";
  return /\btext\/html\b/.test(accept) || !/\btext\/event-stream\b/.test(accept);
};

/**
 * The MCP endpoint. One v2 SDK web-standard handler per app (its listen router and event bus live as
 * long as the app); each request gets a fresh server from the same factory (src/mcp/server.ts), as
 * the SDK requires: 2026-07-28 requests (`server/discover`, per-request `_meta`) on its modern path,
 * 2025-era clients (`initialize`) on its stateless legacy path. Nothing is kept between requests, so
 * any number of server processes can answer one client. With `oauth`, the operator's tools are
 * served to requests carrying an operator's access token (api/mcp/auth.ts).
 */
export function mcpRoutes(app: H3, ctx: AppContext, oauth?: OAuthServer, front?: McpFront): void {
  const versions = new Set<string>(MCP_PROTOCOL_VERSIONS);
  const tools = createToolCatalog(ctx);
  const prompts = createPromptCatalog((typed) => completeSlug(ctx, typed));
  const replay = createMcpReplay(ctx, tools);
  const publicTools = new Set(tools.tools.map(({ op }) => op.mcp.tool));
  // Its public answers are replayed before h3 too (api/mcp/front.ts).
  front?.attach(replay);
  // The caller of the request being served, for the factory the SDK calls inside `handler.fetch`
  // (its legacy path hands the factory a copy of the request, so the request cannot be the key).
  const callers = new AsyncLocalStorage<{ caller: Caller; operator?: OperatorCaller; call?: string }>();
  const onerror = (err: Error) => ctx.log.warn({ err: err.message }, "MCP request rejected");
  const handler = createMcpHandler(() => {
    const { caller, operator, call } = callers.getStore()!;
    return createMcpServer(ctx, caller, tools, prompts, operator, call);
  }, { maxRequestBodySize: BODY_LIMIT_BYTES, onerror });
  app.all("/mcp", async (event) => {
    // HEAD as GET: the set-up page's headers (Node sends no body).
    if ((event.req.method === "GET" || event.req.method === "HEAD") && wantsPage(event)) return setupPage(ctx);
    // Browsers may only reach it from the pages api/mcp/origins.ts allows (DNS rebinding, transport spec).
    const rejected = mcpOriginRefusal(ctx, event.req as unknown as Request);
    if (rejected) return rejected;
    const version = event.req.headers.get("mcp-protocol-version");
    if (version !== null && !versions.has(version)) {
      let id: string | number | undefined;
      // The request's own id when its body has one (a body that is not JSON, or has none, gets null).
      if (event.req.method === "POST") id = await readBodyText(event).then(requestId, () => undefined);
      return unsupportedVersion(version, id, MCP_PROTOCOL_VERSIONS);
    }
    const caller: Caller = { transport: "mcp", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false };
    const request = event.req as unknown as Request;
    const accept = request.headers.get("accept") ?? "";
    // A POST the SDK would serve on its stateless legacy path may be one it answered before (api/mcp/replay.ts).
    if (request.method !== "POST" || !/^application\/json\b/i.test(request.headers.get("content-type") ?? "") || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
      const auth = oauth ? await mcpAuthorization(ctx, oauth, event, undefined) : {};
      if (auth instanceof Response) return auth;
      return callers.run({ caller, operator: auth.operator }, () => handler.fetch(request));
    }
    let text: string;
    try {
      text = await readBodyText(event);
    } catch {
      return jsonRpcError(413, -32000, `The request body exceeds the limit of ${BODY_LIMIT_BYTES} bytes.`);
    }
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON.");
    }
    const auth = oauth ? await mcpAuthorization(ctx, oauth, event, parsedBody) : {};
    if (auth instanceof Response) return auth;
    const { operator } = auth;
    // An operator's answers are theirs: never replayed to another caller, nor kept for one.
    const key = operator ? undefined : replay.keyOf(version, parsedBody);
    const kept = key && replay.answer(key, (parsedBody as { id: unknown }).id);
    if (kept) return kept;
    const versionBefore = key ? replay.version() : "";
    // A server for one call of a public tool registers that tool alone (any other request: everything).
    const named = calledTool(parsedBody);
    const call = named !== undefined && publicTools.has(named) ? named : undefined;
    // 2025-era requests as JSON (answerLegacyAsJson); the rest as the SDK's handler serves them.
    const response = await (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: BODY_LIMIT_BYTES })
      ? answerLegacyAsJson(createMcpServer(ctx, caller, tools, prompts, operator, call), request, parsedBody, onerror)
      : callers.run({ caller, operator, call }, () => handler.fetch(request, { parsedBody })));
    if (key) replay.learn(key, response.clone(), versionBefore);
    if (version !== null && LEGACY_VERSIONS.has(version) && (parsedBody as { method?: unknown } | null)?.method === "resources/read") return legacyResourceNotFound(response);
    return response;
  });
}
