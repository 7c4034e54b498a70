import type { H3, H3Event } from "h3";
import { referralCode, referralCodeOfPage } from "../../../src/core/readers/referral.ts";
import { subscribeByForm, type SubscribeFormPost } from "../../../src/services/operations/subscribe-form.ts";
import type { Caller } from "../../../src/services/operations/bindings.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { readBodyText } from "../../http/body.ts";
import { clientAddress } from "../../http/client-address.ts";
import { viewPage } from "../../http/html-page.ts";

/**
 * POST /subscribe: the subscribe form without JavaScript. The site's form posts here as
 * application/x-www-form-urlencoded (its script posts JSON to /api/subscribe instead); the service
 * runs the very same operation (src/services/operations/subscribe-form.ts), so validation and silent
 * rejections are identical, and the answer is a page in the site's look
 * (src/pages/on-request/readers/subscribe.astro): thanks naming the town, the form again with each
 * error next to its field, or a friendly rate-limit page with Retry-After. Never problem+json: a
 * browser shows it raw.
 */

/** The form as posted; read only once the rate limit let the request in. */
async function readForm(event: H3Event, ctx: AppContext): Promise<SubscribeFormPost> {
  // An oversized body counts as empty: the reader sees which fields to fill, not a JSON error.
  const form = new URLSearchParams(await readBodyText(event).catch(() => ""));
  const field = (name: string) => (form.get(name) ?? "").trim();
  const referrer = event.req.headers.get("referer") ?? undefined;
  return {
    email: field("email"), slug: field("slug"), city: field("city"), state: field("state"), honeypot: form.get("honeypot") ?? "", landing_path: field("landing_path"), referrer,
    // Posted from a page a share link opened, its Referer carries the code; a form shown again carries it on.
    ref: referralCode(field("ref")) ?? referralCodeOfPage(referrer ?? null, ctx.config.baseUrl) ?? "",
  };
}

export function subscribeFormRoutes(app: H3, ctx: AppContext): void {
  app.post("/subscribe", async (event: H3Event) => {
    const caller: Caller = { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false };
    const view = await subscribeByForm(ctx, caller, () => readForm(event, ctx));
    if (view.kind === "busy") return viewPage(ctx, 429, "readers/subscribe", view, { headers: { "Retry-After": view.retrySeconds } });
    return viewPage(ctx, view.kind === "form" ? 400 : 200, "readers/subscribe", view);
  });
}
