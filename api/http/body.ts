import type { H3Event } from "h3";
import { AppError } from "../../src/core/errors.ts";
import { BODY_LIMIT_BYTES } from "../../src/contract/operation.ts";

/** A body read before the app saw the request (api/mcp/front.ts), kept on node's request object. */
export const PREREAD_BODY = Symbol("citydaily.prereadBody");

/** Reads a body as text, counting bytes as they arrive so an oversized body is refused without buffering it. */
export async function readBodyText(event: H3Event, limit = BODY_LIMIT_BYTES): Promise<string> {
  const preread = nodeRequest(event)?.[PREREAD_BODY];
  if (preread !== undefined && Buffer.byteLength(preread) <= limit) return preread;
  return Buffer.from(await readBodyBytes(event, limit)).toString("utf8");
}

type NodeRequest = AsyncIterable<Uint8Array> & { [PREREAD_BODY]?: string };
const nodeRequest = (event: H3Event) => (event.req as { runtime?: { node?: { req?: NodeRequest } } }).runtime?.node?.req;

/**
 * Reads a body's bytes, counting them as they arrive: past `limit` it stops reading and throws
 * `payload_too_large`, so a body sent chunked (no Content-Length) is never buffered whole.
 */
export async function readBodyBytes(event: H3Event, limit = BODY_LIMIT_BYTES): Promise<Uint8Array> {
  const tooLarge = () => new AppError("payload_too_large", `The request body exceeds the limit of ${limit} bytes (${limit / 1024} KiB).`);
  const declared = Number(event.req.headers.get("content-length") ?? NaN);
  if (declared > limit) throw tooLarge();
  // Under node:http, straight from the socket's stream: the web stream over it costs more than the
  // read itself for the small bodies of the API and MCP.
  const node = nodeRequest(event);
  const preread = node?.[PREREAD_BODY];
  if (preread !== undefined) {
    const bytes = Buffer.from(preread);
    if (bytes.byteLength > limit) throw tooLarge();
    return bytes;
  }
  const source = node && !event.req.bodyUsed ? node : (event.req.body as unknown as AsyncIterable<Uint8Array> | null);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (source) {
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}

/** Reads a JSON body within the limit: `payload_too_large` past it, `invalid_json` when empty or malformed. */
export async function readJsonBody(event: H3Event, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  const text = await readBodyText(event, limit);
  if (text.trim() === "") throw new AppError("invalid_json", "The request body is empty; send a JSON object.");
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("invalid_json", `The request body is not valid JSON: ${(e as Error).message}`);
  }
}
