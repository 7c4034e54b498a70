import type { IncomingMessage, ServerResponse } from "node:http";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import { BODY_LIMIT_BYTES } from "../../src/contract/operation.ts";
import { compress } from "../../src/publish/precompressed.ts";
import { PREREAD_BODY } from "../http/body.ts";
import { chooseEncoding } from "../http/compression.ts";
import type { EdgeOptions } from "../http/edge-cache.ts";
import type { McpReplay } from "./replay.ts";

/**
 * The MCP answer replay (api/mcp/replay.ts) at the node:http layer, before h3, as the edge cache
 * answers HTTP reads (api/http/edge-cache.ts). A profile of a replayed `tools/call get_city` had most of
 * its time in h3, the web Request and Response and their streams, and little in the replay, so MCP
 * ran at a fifth of the same read over HTTP, which the edge cache answers.
 *
 * Taken: a public request as the replay may answer it, nothing else. A POST to `/mcp` exactly (not
 * `/mcp?operator`), no `Authorization` (an operator's requests always go through the app, and their
 * answers are never kept), no `Origin` (the app checks it), a 2025-era `MCP-Protocol-Version`, a JSON
 * body of declared length within the limit. Its body is read here; a request the replay cannot answer
 * goes on to the app with the body read (`PREREAD_BODY`, which `readBodyText` returns). The answer
 * carries what the app's would: its headers (`finish`), `X-Request-Id`, compression as the app's
 * middleware does it, the request logged and timed under `/mcp`, and `Cache-Status` saying so.
 */
export interface McpFront {
  /** Whether this request is one to read here; when false the app answers it untouched. */
  takes(req: IncomingMessage): boolean;
  /** Reads the body and answers from the replay, or passes the request (body read) to `next`. */
  serve(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** The replay the MCP route made (api/mcp/endpoint.ts), once it exists. */
  attach(replay: McpReplay): void;
}

const LEGACY = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);
// RFC 9211, as the edge cache says its hits.
const HIT = "citydaily-mcp-replay; hit";
const MIN_COMPRESSED_BYTES = 1024; // as the app's compression middleware (api/http/compression.ts)

export function createMcpFront(baseUrl: () => string, options: EdgeOptions): McpFront {
  let replay: McpReplay | undefined;
  let fixed: { baseUrl: string; headers: string[] } | undefined;
  // The headers every answer of /mcp carries, made once for the site's address.
  const fixedHeaders = () => {
    if (fixed?.baseUrl !== baseUrl()) {
      const headers = new Headers({ "Content-Type": "application/json", "Cache-Control": "no-store", Vary: "Accept-Encoding" });
      options.finish(headers, "/mcp");
      fixed = { baseUrl: baseUrl(), headers: [...headers].flat() };
    }
    return fixed.headers;
  };

  function answer(req: IncomingMessage, res: ServerResponse, text: string, startedAt: number): void {
    const incoming = req.headers["x-request-id"];
    const requestId = options.requestId(Array.isArray(incoming) ? incoming[0] : incoming);
    const body = Buffer.from(text);
    const encoding = body.byteLength >= MIN_COMPRESSED_BYTES ? chooseEncoding(req.headers["accept-encoding"] ?? null) : undefined;
    const send = (bytes: Buffer, extra: string[]) => {
      res.writeHead(200, [...fixedHeaders(), ...extra, "Content-Length", String(bytes.byteLength), "X-Request-Id", requestId, "Cache-Status", HIT]);
      res.end(bytes);
      options.log(requestId, "POST", "/mcp", 200, startedAt);
    };
    if (!encoding) return send(body, []);
    compress(body, encoding, 4).then((bytes) => send(bytes, ["Content-Encoding", encoding]), () => send(body, []));
  }

  return {
    attach(r) {
      replay = r;
    },
    takes(req) {
      const h = req.headers;
      const length = Number(h["content-length"]);
      const accept = h.accept ?? "";
      return replay !== undefined && req.method === "POST" && req.url === "/mcp" && h.authorization === undefined && h.origin === undefined
        && h["transfer-encoding"] === undefined && length > 0 && length <= BODY_LIMIT_BYTES
        && LEGACY.has(String(h["mcp-protocol-version"])) && /^application\/json\b/i.test(h["content-type"] ?? "")
        && accept.includes("application/json") && accept.includes("text/event-stream");
    },
    serve(req, res, next) {
      const startedAt = performance.now();
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.once("error", () => res.destroy());
      req.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let message: unknown;
        try {
          message = JSON.parse(text);
        } catch {
          message = undefined;
        }
        const key = message === undefined ? undefined : replay!.keyOf(String(req.headers["mcp-protocol-version"]), message);
        const kept = key && replay!.body(key, (message as { id: unknown }).id);
        if (kept) return answer(req, res, kept, startedAt);
        (req as IncomingMessage & { [PREREAD_BODY]?: string })[PREREAD_BODY] = text;
        next();
      });
    },
  };
}
