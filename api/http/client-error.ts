import http from "node:http";
import type { Duplex } from "node:stream";
import { problemBody, type ProblemCode } from "../../src/contract/problems.ts";
import type { FieldIssue } from "../../src/core/errors.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { apiHeaders, isApi } from "./cors.ts";
import { viewDocument } from "./html-page.ts";
import { loggedPath } from "./route-label.ts";

/**
 * Node's HTTP parser refuses some requests before the app runs (an invalid method token,
 * `Transfer-Encoding` with `Content-Length`, bytes not allowed in a header, headers over 16 KB, a
 * request not finished in time); its own answer is an empty 400/431/408. This is the server's
 * `clientError` hook: under /api the same problem+json as every other /api failure, elsewhere a
 * page in the site's layout. Nothing is written to a socket that is gone, or on which an answer has begun.
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

/** Whether nothing more can be written on the socket (gone, or an answer has begun on it). */
function closed(err: NodeJS.ErrnoException, socket: Duplex): boolean {
  const answered = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  return err.code === "ECONNRESET" || err.code === "EPIPE" || !socket.writable || socket.destroyed || !!answered;
}

/** Writes the whole answer (head, then body) and closes: a client that never reads cannot keep it open. */
function send(socket: Duplex, status: number, headers: Headers, body: string): void {
  headers.set("Content-Length", String(Buffer.byteLength(body)));
  let head = `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\n`;
  headers.forEach((value, name) => (head += `${name}: ${value}\r\n`));
  socket.end(`${head}\r\n${body}`);
  setTimeout(() => socket.destroy(), 1000).unref();
}

export function answerClientError(ctx: AppContext, err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  if (closed(err, socket)) {
    socket.destroy();
    return;
  }
  const r = refusalOf(err);
  const path = pathOf(err, socket);
  const headers = new Headers({ "Cache-Control": "no-store", Connection: "close", "X-Content-Type-Options": "nosniff" });
  ctx.log.info({ status: r.status, code: err.code, path: path === undefined ? undefined : loggedPath(path) }, "request refused by the HTTP parser");
  if (path !== undefined && isApi(path)) {
    headers.set("Content-Type", "application/problem+json");
    apiHeaders(headers);
    send(socket, r.status, headers, JSON.stringify(problemBody(ctx.config.baseUrl, r.code, r.detail, path, r.issue ? [r.issue] : undefined)));
    return;
  }
  // A person's page, in the site's layout (src/pages/on-request/site/refusal.astro); plain words if it cannot be drawn.
  const title = http.STATUS_CODES[r.status] ?? "Bad Request";
  void viewDocument(ctx, "site/refusal", { kind: "bad-request", title, detail: r.detail }).then(
    (html) => ({ type: "text/html; charset=utf-8", body: html }),
    () => ({ type: "text/plain; charset=utf-8", body: `${title}: ${r.detail} Nothing was done with it.\n` }),
  ).then(({ type, body }) => {
    if (closed(err, socket)) return void socket.destroy();
    headers.set("Content-Type", type);
    send(socket, r.status, headers, body);
  });
}
