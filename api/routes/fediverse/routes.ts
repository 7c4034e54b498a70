import type { H3, H3Event } from "h3";
import { createFediverse, type Fediverse } from "../../../src/services/fediverse/federation.ts";
import { ICON_PATH } from "../../../src/services/fediverse/paths.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { problemResponse } from "../../problem.ts";
import { actorIconPng } from "./icon.ts";

/** What Fedify answers: WebFinger, NodeInfo, the town actors, their inboxes, collections and Articles. */
const FEDIFY_PATHS = ["/.well-known/webfinger", "/.well-known/nodeinfo", "/nodeinfo/2.1", "/fediverse/inbox", "/fediverse/towns/**"];

const MAX_ACTIVITY_BYTES = 1024 * 1024;

/** A WebFinger lookup of no town says whom it asked for, and when a town has an actor. */
function notFoundDetail(pathname: string, resource: string | null): string {
  if (pathname === "/.well-known/webfinger" && resource) return `No town here answers to ${resource}: a town has an actor, @{slug}@host, once it has an edition.`;
  return `Nothing at ${pathname}.`;
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
    let body: ArrayBuffer | undefined;
    if (method !== "GET" && method !== "HEAD") {
      // An activity is a few kilobytes; Mastodon refuses more than 1 MB, and so do we.
      if (Number(event.req.headers.get("content-length") ?? 0) > MAX_ACTIVITY_BYTES) return problemResponse(ctx.config.baseUrl, "payload_too_large", "An activity is at most 1 MB.", { instance: pathname });
      body = await event.req.arrayBuffer();
      if (body.byteLength > MAX_ACTIVITY_BYTES) return problemResponse(ctx.config.baseUrl, "payload_too_large", "An activity is at most 1 MB.", { instance: pathname });
    }
    // The sender signed for the public host (`Host`, `@authority`): the request reaches Fedify as it was sent.
    const url = new URL(pathname + search, ctx.config.baseUrl);
    const headers = new Headers(event.req.headers);
    headers.set("host", url.host);
    const request = new Request(url, { method, headers, body });
    return fediverse.federation.fetch(request, {
      contextData: ctx,
      onNotFound: () => problemResponse(ctx.config.baseUrl, "not_found", notFoundDetail(pathname, event.url.searchParams.get("resource")), { instance: pathname }),
      onNotAcceptable: () => {
        const town = /^\/fediverse\/towns\/([a-z0-9-]+)/.exec(pathname)?.[1];
        if (town) return Response.redirect(`${ctx.config.baseUrl}/${town}`, 303);
        return problemResponse(ctx.config.baseUrl, "not_found", `${pathname} answers ActivityPub (application/activity+json) only.`, { instance: pathname });
      },
    });
  };
  for (const path of FEDIFY_PATHS) app.all(path, handle);

  const icon = actorIconPng();
  app.get(ICON_PATH, () => new Response(new Uint8Array(icon), { headers: { "Content-Type": "image/png", "Cache-Control": "public, max-age=604800" } }));
}
