import type { H3, H3Event } from "h3";
import { operationsById } from "../../../src/contract/operations/index.ts";
import type { SubscribeResponse } from "../../../src/contract/subscribe.ts";
import { AppError, toFieldIssues, type FieldIssue } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { admit, runOperation, type Caller } from "../../../src/services/operations/bindings.ts";
import { referralCode, referralCodeOfPage } from "../../../src/core/readers/referral.ts";
import { findPlaceBySlug } from "../../../src/store/places/places.ts";
import { readBodyText } from "../../http/body.ts";
import { clientAddress } from "../../http/client-address.ts";
import { htmlPage } from "../../http/html-page.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * POST /subscribe: the subscribe form without JavaScript. The site's form posts here as
 * application/x-www-form-urlencoded (its script posts JSON to /api/subscribe instead); this route
 * runs the very same operation (`admit` for the rate limit, the contract's body schema, then
 * `runOperation`), so validation and silent rejections are identical, and answers a page in the
 * site's look: thanks naming the town, the form again with each error next to its field, or a
 * friendly rate-limit page with Retry-After. Never problem+json: a browser shows it raw.
 */
const op = operationsById.subscribe;

interface Typed {
  email: string;
  slug: string;
  city: string;
  state: string;
  honeypot: string;
  landing_path: string;
  /** The referral code of the share link the reader came by, kept across a form shown again. */
  ref: string;
}

/** Only a local path may be linked back to (the field is posted by the browser, so anyone can fill it). */
function localPath(p: string): string | undefined {
  return /^\/(?![/\\])[^\s]*$/.test(p) ? p : undefined;
}

/**
 * The thanks are the same for every address (as the operation's answer is): how often a reader coming
 * back gets the town is theirs to read in the welcome email, never told to whoever typed the address.
 */
function thanksPage(ctx: AppContext, typed: Typed, place: string, message: string): Promise<Response> {
  const back = `/${encodeURIComponent(typed.slug)}`;
  return htmlPage(ctx, 200, `Thanks: the ${place} newsletter is on its way`, `<div class="card">
<p class="notice" role="status">${e(message)}</p>
<p>${e(typed.email)} will get the ${e(place)} newsletter every morning, or once a week if the address chose that before. The welcome email says which, and when the first one arrives.</p>
</div>
<p><a href="${e(back)}">Back to ${e(place)}</a></p>`);
}

function formPage(ctx: AppContext, status: number, typed: Typed, issues: FieldIssue[], detail: string, placeName?: string): Promise<Response> {
  const byField = new Map<string, string[]>();
  for (const i of issues) {
    // Town fields are hidden on the form: their errors are about the town the reader picked.
    const field = i.path === "email" ? "email" : "town";
    byField.set(field, [...(byField.get(field) ?? []), i.message]);
  }
  const errorsOf = (field: string) =>
    (byField.get(field) ?? []).map((m) => `<p class="field-error" id="${field}-error">${e(field === "email" ? "Email address" : "Town")}: ${e(m)}</p>`).join("");
  const invalid = (field: string) => (byField.has(field) ? ` aria-invalid="true" aria-describedby="${field}-error"` : "");
  const hidden = (name: keyof Typed) => `<input type="hidden" name="${name}" value="${e(typed[name])}">`;
  const back = localPath(typed.landing_path);
  const town = placeName ?? ([typed.city, typed.state].filter(Boolean).join(", ") || typed.slug || "no town chosen");
  return htmlPage(ctx, status, "Please check your subscription", `<p role="alert">${e(detail)}</p>
<form class="card" method="post" action="/subscribe" novalidate>
<label for="email">Email address</label>
<input id="email" type="email" name="email" autocomplete="email" required value="${e(typed.email)}"${invalid("email")}>
${errorsOf("email")}
<p>Town: <strong>${e(town)}</strong></p>
${errorsOf("town")}
${hidden("slug")}${hidden("city")}${hidden("state")}${hidden("landing_path")}${typed.ref ? hidden("ref") : ""}
<div class="trap" aria-hidden="true"><label>Leave this empty <input type="text" name="honeypot" tabindex="-1" autocomplete="off"></label></div>
<button type="submit">Subscribe</button>
</form>
<p>${back ? `<a href="${e(back)}">Back to the page you came from</a> · ` : ""}<a href="/cities">Choose another town</a></p>`);
}

export function subscribeFormRoutes(app: H3, ctx: AppContext): void {
  app.post("/subscribe", async (event: H3Event) => {
    const caller: Caller = { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false };
    try {
      // Before the body is read, as for the JSON route: bots and malformed posts use up the allowance too.
      admit(ctx, op, caller);
    } catch (err) {
      if (err instanceof AppError && err.code === "rate_limited") {
        const retry = err.headers?.["Retry-After"] ?? "60";
        return htmlPage(ctx, 429, "Too many sign-ups at once", `<p>This address has sent many subscribe requests in a short time. Please try again in ${e(retry)} seconds; nothing was lost.</p>
<p><a href="/">Back to citydaily</a></p>`, { headers: { "Retry-After": retry } });
      }
      throw err;
    }
    // An oversized body counts as empty: the reader sees which fields to fill, not a JSON error.
    const form = new URLSearchParams(await readBodyText(event).catch(() => ""));
    const field = (name: string) => (form.get(name) ?? "").trim();
    const typed: Typed = { email: field("email"), slug: field("slug"), city: field("city"), state: field("state"), honeypot: form.get("honeypot") ?? "", landing_path: field("landing_path"),
      // Posted from a page a share link opened, its Referer carries the code; a form shown again carries it on.
      ref: referralCode(field("ref")) ?? referralCodeOfPage(event.req.headers.get("referer"), ctx.config.baseUrl) ?? "" };
    // The town picker sends only the slug; the named town is then the place of that slug.
    const place = typed.slug ? findPlaceBySlug(ctx.db, typed.slug) : undefined;
    if (place && !typed.city && !typed.state) {
      typed.city = place.name;
      typed.state = place.state_name;
    }
    const placeName = place ? `${place.name}, ${place.state_name}` : undefined;
    const parsed = op.body.safeParse({
      email: typed.email,
      slug: typed.slug,
      city: typed.city,
      state: typed.state,
      honeypot: typed.honeypot,
      landing_path: typed.landing_path || undefined,
      referrer: event.req.headers.get("referer") ?? undefined,
      ...(typed.ref ? { ref: typed.ref } : {}),
    });
    if (!parsed.success) {
      return formPage(ctx, 400, typed, toFieldIssues(parsed.error.issues), "Something in the form needs a change.", placeName);
    }
    try {
      const reply = await runOperation(ctx, op, parsed.data, caller);
      const answer = reply.data as SubscribeResponse;
      return thanksPage(ctx, typed, placeName ?? `${typed.city}, ${typed.state}`, answer.message ?? "Thanks! Check your inbox for a welcome email.");
    } catch (err) {
      if (err instanceof AppError && err.code === "validation_error") {
        return formPage(ctx, 400, typed, err.issues ?? [], err.message, placeName);
      }
      throw err;
    }
  });
}
