import http from "node:http";
import type { Duplex } from "node:stream";
import { problemBody, type ProblemCode } from "../../src/contract/problems.ts";
import type { FieldIssue } from "../../src/core/errors.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { apiHeaders, isApi } from "./cors.ts";
import { loggedPath } from "./route-label.ts";

/**
 * Node's HTTP parser refuses some requests before the app runs (an invalid method token,
 * `Transfer-Encoding` with `Content-Length`, bytes not allowed in a header, headers over 16 KB, a
 * request not finished in time); its own answer is an empty 400/431/408. This is the server's
 * `clientError` hook: under /api the same problem+json as every other /api failure, elsewhere a
 * plain page. Nothing is written to a socket that is gone, or on which an answer has begun.
 */
interface Refusal {
  status: number;
  code: ProblemCode;
  detail: string;
  issue?: FieldIssue;
}

function refusalOf(err: NodeJS.ErrnoException): Refusal {
  switch (err.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "headers_too_large", detail: "The request's headers are larger than 16 KB." };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, code: "payload_too_large", detail: "The request's chunk extensions are too large." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, code: "request_timeout", detail: "The request was not received in time." };
    case "HPE_INVALID_METHOD":
      return { status: 400, code: "validation_error", detail: "The request's method is not a valid HTTP method.", issue: { path: "method", message: "not a valid HTTP method token" } };
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
    case "HPE_INVALID_TRANSFER_ENCODING":
      return { status: 400, code: "validation_error", detail: "The request has both Transfer-Encoding and Content-Length, or an invalid Transfer-Encoding.", issue: { path: "headers", message: "Transfer-Encoding and Content-Length together, or an invalid Transfer-Encoding" } };
    case "HPE_INVALID_HEADER_TOKEN":
      return { status: 400, code: "validation_error", detail: "A request header contains bytes that are not allowed.", issue: { path: "headers", message: "a header name or value contains bytes that are not allowed" } };
    default:
      return { status: 400, code: "validation_error", detail: "The request is not valid HTTP.", issue: { path: "request", message: (err as { reason?: string }).reason ?? "malformed HTTP request" } };
  }
}

/** The path of the refused request, as far as it was read: from the bytes the parser saw, or the request in progress. */
function pathOf(err: { rawPacket?: Buffer }, socket: Duplex): string | undefined {
  const inProgress = (socket as { _httpMessage?: { req?: { url?: string } } })._httpMessage?.req?.url;
  const line = err.rawPacket ? /^[^\r\n ]* +([^\s]+)/.exec(err.rawPacket.subarray(0, 8192).toString("latin1"))?.[1] : undefined;
  const target = inProgress ?? line;
  if (!target) return undefined;
  try {
    return new URL(target, "http://localhost").pathname;
  } catch {
    return undefined;
  }
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function answerClientError(ctx: AppContext, err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  // Gone (a reset, a broken pipe), or an answer has begun on it: nothing can be added, only closed.
  const answered = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === "ECONNRESET" || err.code === "EPIPE" || !socket.writable || socket.destroyed || answered) {
    socket.destroy();
    return;
  }
  const r = refusalOf(err);
  const path = pathOf(err, socket);
  const headers = new Headers({ "Cache-Control": "no-store", Connection: "close", "X-Content-Type-Options": "nosniff" });
  let body: string;
  if (path !== undefined && isApi(path)) {
    body = JSON.stringify(problemBody(ctx.config.baseUrl, r.code, r.detail, path, r.issue ? [r.issue] : undefined));
    headers.set("Content-Type", "application/problem+json");
    apiHeaders(headers);
  } else {
    const title = http.STATUS_CODES[r.status] ?? "Bad Request";
    body = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)} · citydaily</title></head>
<body><h1>${escape(title)}</h1><p>${escape(r.detail)} Nothing was done with it.</p><p><a href="/">Go to the citydaily home page</a></p></body></html>
`;
    headers.set("Content-Type", "text/html; charset=utf-8");
  }
  headers.set("Content-Length", String(Buffer.byteLength(body)));
  let head = `HTTP/1.1 ${r.status} ${http.STATUS_CODES[r.status] ?? ""}\r\n`;
  headers.forEach((value, name) => (head += `${name}: ${value}\r\n`));
  ctx.log.info({ status: r.status, code: err.code, path: path === undefined ? undefined : loggedPath(path) }, "request refused by the HTTP parser");
  // Closed once written; a client that never reads cannot keep it open.
  socket.end(`${head}\r\n${body}`);
  setTimeout(() => socket.destroy(), 1000).unref();
}
