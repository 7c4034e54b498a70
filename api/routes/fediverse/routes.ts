import type { H3, H3Event } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import { withFullPublicUri } from "../../../src/core/fediverse/public-audience.ts";
import { createFediverse, type Fediverse } from "../../../src/services/fediverse/federation.ts";
import { ICON_PATH } from "../../../src/services/fediverse/paths.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { readBodyBytes } from "../../http/body.ts";
import { problemResponse } from "../../http/problem.ts";
import { actorIconPng } from "./icon.ts";

/** What Fedify answers: WebFinger, NodeInfo, the town actors, their inboxes, collections and Articles. */
const FEDIFY_PATHS = ["/.well-known/webfinger", "/.well-known/nodeinfo", "/nodeinfo/2.1", "/fediverse/inbox", "/fediverse/towns/**"];

/** An activity is a few kilobytes; Mastodon refuses more than 1 MB, and so do we. */
const MAX_ACTIVITY_BYTES = 1024 * 1024;
/** The longest WebFinger resource looked up: an `acct:` of a slug and a host is under 200 characters. */
const MAX_RESOURCE_CHARS = 1024;

const isInbox = (pathname: string) => pathname === "/fediverse/inbox" || /^\/fediverse\/towns\/[^/]+\/inbox$/.test(pathname);

/** A WebFinger lookup of no town says whom it asked for, and when a town has an actor. */
function notFoundDetail(pathname: string, resource: string | null): string {
  if (pathname === "/.well-known/webfinger" && resource) return `No town here answers to ${resource.slice(0, 200)}: a town has an actor, @{slug}@host, once it has an edition.`;
  return `Nothing at ${pathname}.`;
}

/** Why a WebFinger query is not one to look up (none, two, too long, not a URI), or undefined. */
function webFingerRefusal(params: URLSearchParams): string | undefined {
  const resources = params.getAll("resource");
  if (resources.length !== 1) return resources.length === 0 ? "Give the account to look up: ?resource=acct:{slug}@host." : "Give one resource, not several.";
  if (resources[0].length > MAX_RESOURCE_CHARS) return `A resource is at most ${MAX_RESOURCE_CHARS} characters.`;
  if (!URL.canParse(resources[0])) return "The resource is not a URI: acct:{slug}@host, or a town actor's address.";
  return undefined;
}

/**
 * Reads an inbox's or other POST's body within MAX_ACTIVITY_BYTES, counting bytes as they arrive (a
 * chunked body past it is refused after 1 MB, not read whole), then for an inbox the checks before
 * Fedify (src/services/fediverse/inbox-gate.ts). Answers a problem, or gives the body to hand on.
 */
async function readActivity(event: H3Event, ctx: AppContext, fediverse: Fediverse, request: (body?: Uint8Array) => Request): Promise<Response | Uint8Array> {
  const { pathname } = event.url;
  let body: Uint8Array;
  try {
    body = await readBodyBytes(event, MAX_ACTIVITY_BYTES);
  } catch (err) {
    if (err instanceof AppError && err.code === "payload_too_large") return problemResponse(ctx.config.baseUrl, "payload_too_large", "An activity is at most 1 MB.", { instance: pathname });
    throw err;
  }
  if (!isInbox(pathname)) return body;
  const refused = await fediverse.gate.check(request(body), Buffer.from(body).toString("utf8"));
  return refused ? problemResponse(ctx.config.baseUrl, refused.code, refused.detail, { instance: pathname, headers: refused.headers }) : body;
}

/** An ActivityPub document we serve, with the public collection written in full (core/fediverse/public-audience.ts). */
async function withFullPublicAddress(response: Response): Promise<Response> {
  if (!response.ok || !/^application\/(activity|ld)\+json/.test(response.headers.get("content-type") ?? "")) return response;
  const text = await response.text();
  if (!text.includes("Public")) return new Response(text, response);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(withFullPublicUri(JSON.parse(text))), { status: response.status, headers });
}

/**
 * The fediverse's paths, answered by Fedify's own `fetch` (its h3 adapter lags its major version).
 * The request reaches Fedify on BASE_URL's origin, so ids and WebFinger handles are the public ones
 * whatever Host the CDN or proxy forwarded. A person's browser asking for an actor is sent to the
 * town's page.
 */
export function fediverseRoutes(app: H3, ctx: AppContext): void {
  // Made on the first request, when BASE_URL is final (a test learns its port after the start).
  let fediverse: Fediverse | undefined;
  const handle = async (event: H3Event) => {
    fediverse ??= createFediverse(ctx);
    const { pathname, search } = event.url;
    const method = event.req.method;
    if (pathname === "/.well-known/webfinger") {
      const refused = webFingerRefusal(event.url.searchParams);
      if (refused) return problemResponse(ctx.config.baseUrl, "validation_error", refused, { instance: pathname, issues: [{ path: "resource", message: refused }] });
    }
    // The sender signed for the public host (`Host`, `@authority`): the request reaches Fedify as it was sent.
    const url = new URL(pathname + search, ctx.config.baseUrl);
    const headers = new Headers(event.req.headers);
    headers.set("host", url.host);
    const request = (body?: Uint8Array) => new Request(url, { method, headers, body: body as BodyInit | undefined });
    let body: Uint8Array | undefined;
    if (method !== "GET" && method !== "HEAD") {
      const read = await readActivity(event, ctx, fediverse, request);
      if (read instanceof Response) return read;
      body = read;
    }
    const response = await fediverse.federation.fetch(request(body), {
      contextData: ctx,
      onNotFound: () => problemResponse(ctx.config.baseUrl, "not_found", notFoundDetail(pathname, event.url.searchParams.get("resource")), { instance: pathname }),
      onNotAcceptable: () => {
        const town = /^\/fediverse\/towns\/([a-z0-9-]+)/.exec(pathname)?.[1];
        // Not Response.redirect(): its headers are immutable, so the security headers and X-Request-Id could not join.
        if (town) return new Response(null, { status: 303, headers: { Location: `${ctx.config.baseUrl}/${town}` } });
        return problemResponse(ctx.config.baseUrl, "not_found", `${pathname} answers ActivityPub (application/activity+json) only.`, { instance: pathname });
      },
    });
    return method === "GET" ? withFullPublicAddress(response) : response;
  };
  for (const path of FEDIFY_PATHS) app.all(path, handle);

  const icon = actorIconPng();
  app.get(ICON_PATH, () => new Response(new Uint8Array(icon), { headers: { "Content-Type": "image/png", "Cache-Control": "public, max-age=604800" } }));
}
