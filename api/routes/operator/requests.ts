import type { H3Event } from "h3";
import { parseCookies } from "h3";
import type { z } from "zod";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { csrfToken, csrfValid, newNonce, sessionOperator, townDesk } from "../../../src/services/commerce/operator-desk.ts";
import { readBodyText } from "../../http/body.ts";
import { htmlPage } from "../../http/html-page.ts";
import { deskPage, signInPage, type DeskOptions, type FieldErrors } from "./pages.ts";

/**
 * What the operator desk's routes (api/routes/operator/routes.ts) share: the session and pre-session
 * cookies, the posted form, the CSRF check, the redirects, the desk page and the notices.
 */
export const SESSION_COOKIE = "cd_operator";
/** A random nonce for the forms shown before sign-in, which their CSRF token is bound to. */
export const PRE_COOKIE = "cd_operator_pre";
export const SLUG = /^[a-z0-9-]{1,120}$/;
export const ORDER_ID = /^lo_[0-9a-f-]{36}$/;

export function cookie(ctx: AppContext, name: string, value: string, maxAgeSeconds: number): string {
  const secure = ctx.config.baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=/operator; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

export async function form(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(await readBodyText(event).catch(() => ""));
}

export const see = (to: string, cookies: string[] = []) => {
  const headers = new Headers({ Location: to, "Cache-Control": "no-store" });
  for (const c of cookies) headers.append("Set-Cookie", c);
  return new Response(null, { status: 303, headers });
};

export async function withCookies(page: Promise<Response>, cookies: string[]): Promise<Response> {
  const res = await page;
  for (const c of cookies) res.headers.append("Set-Cookie", c);
  return res;
}

export function issues(result: z.ZodSafeParseError<unknown>): FieldErrors {
  const out: FieldErrors = {};
  for (const i of result.error.issues) out[String(i.path[0] ?? "form")] ??= i.message;
  return out;
}

export const expiredCsrf = (ctx: AppContext) => htmlPage(ctx, 403, "This form has expired", `<p>The page you sent it from is too old or was opened in another browser. <a href="/operator">Open the operator desk again</a> and send it once more.</p>`);

/** The desk's helpers bound to the app: who is signed in, the forms' CSRF, Stripe's failures, the desk page. */
export function operatorDesk(ctx: AppContext) {
  const session = (event: H3Event) => parseCookies(event)[SESSION_COOKIE];
  const operatorOf = (event: H3Event) => sessionOperator(ctx, session(event));

  /** The pre-session nonce (set it when the page shows a form and the browser has none yet). */
  function preNonce(event: H3Event): { nonce: string; set: string[] } {
    const have = parseCookies(event)[PRE_COOKIE];
    if (have && /^[\w-]{43}$/.test(have)) return { nonce: have, set: [] };
    const nonce = newNonce();
    return { nonce, set: [cookie(ctx, PRE_COOKIE, nonce, 3600)] };
  }

  function signInForm(event: H3Event, status: number, opts: { email?: string; errors?: FieldErrors; notice?: string } = {}): Promise<Response> {
    const { nonce, set } = preNonce(event);
    return withCookies(htmlPage(ctx, status, "Operator desk: sign in", signInPage(csrfToken(ctx, `pre:${nonce}`), opts)), set);
  }

  /** The signed-in operator, or a redirect to the sign-in page. */
  function requireOperator(event: H3Event): string | Response {
    return operatorOf(event) ?? see("/operator");
  }

  async function signedInPost(event: H3Event, act: (email: string, body: URLSearchParams) => Promise<Response> | Response): Promise<Response> {
    const email = operatorOf(event);
    if (!email) return see("/operator");
    const body = await form(event);
    if (!csrfValid(ctx, session(event), body.get("csrf"))) return expiredCsrf(ctx);
    return stripeTrouble(() => act(email, body));
  }

  /** Stripe unreachable (or not configured) while the desk calls it: a page saying so, not problem+json. */
  async function stripeTrouble(act: () => Promise<Response> | Response): Promise<Response> {
    try {
      return await act();
    } catch (err) {
      if (err instanceof AppError && (err.code === "upstream_error" || err.code === "service_misconfigured")) {
        ctx.log.warn({ err: err.message }, "operator desk: the payment provider could not be used");
        return htmlPage(ctx, err.code === "upstream_error" ? 502 : 503, "Stripe did not answer", `<p>${err.code === "upstream_error" ? "Stripe could not be reached just now. Nothing was changed; try again in a minute." : "Payouts and billing through Stripe are not set up on this site."}</p>
<p><a href="/operator">Back to your desk</a></p>`);
      }
      throw err;
    }
  }

  function desk(event: H3Event, email: string, slug: string, status = 200, opts: Omit<DeskOptions, "email" | "csrf"> = {}): Promise<Response> {
    try {
      const view = townDesk(ctx, email, slug);
      return htmlPage(ctx, status, `${view.lease.town_name}: operator desk`, deskPage(view, { email, csrf: csrfToken(ctx, session(event)!), ...opts }));
    } catch (err) {
      if (err instanceof AppError && err.code === "not_found") return htmlPage(ctx, 404, "Not one of your towns", `<p>You do not run this town. <a href="/operator">Your towns</a></p>`);
      throw err;
    }
  }

  return { session, operatorOf, preNonce, signInForm, requireOperator, signedInPost, stripeTrouble, desk };
}

export type OperatorDesk = ReturnType<typeof operatorDesk>;

const NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  "note-saved": "Your note is saved: it appears in that morning's edition, under the greeting.",
  "note-deleted": "The note is deleted.",
  "feed-added": "The feed is added: the next edition lists what it carries.",
  "feed-removed": "The feed is removed. A source from the town directory stays removed until you restore it.",
  "directory-restored": "Restored: the source was checked again and, if it still works, is back in your town's feeds.",
  "directory-checked": "The town directory's sources were checked: those that work are listed below.",
  approved: "Approved: the listing is published (or, for a paid tier, its buyer has the payment link).",
  rejected: "Rejected: the buyer is emailed that it was, and reads your reason on their order page.",
  cancelled: "Your lease is cancelled. The town stays yours until the end of the paid period.",
  "payouts-on": "Your payout account is connected: your share of each listing is transferred to it.",
  "payouts-pending": "Stripe has not finished checking your payout account yet. Your shares accrue until it has.",
};

/** The line a page shows after a form sent it back with `?done=`. */
export function noticeOf(key: string | null): string | undefined {
  return key ? NOTICES[key] : undefined;
}
