import type { H3Event } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { csrfToken, csrfValid, preSessionCsrf } from "../../../src/services/operators/csrf.ts";
import { viewPage } from "../../http/html-page.ts";
import { form, operatorSession, see, withCookies } from "../../http/operator-session.ts";
import { deskPage, type DeskAnswer } from "./desk-page.ts";

/**
 * What the operator desk's routes (api/routes/operator/routes.ts) share: the sign-in form, the CSRF
 * check of signed-in forms, Stripe's failures, the desk page and the notices. The session and its
 * cookies are api/http/operator-session.ts (the OAuth consent reads them too).
 */
export const SLUG = /^[a-z0-9-]{1,120}$/;
export const ORDER_ID = /^lo_[0-9a-f-]{36}$/;

/** A form of the operator's pages whose CSRF token no longer matches: 403 and the way back. */
export const expiredCsrf = (ctx: AppContext) => viewPage(ctx, 403, "operator/sign-in", { state: "form-expired" });

/** The desk's helpers bound to the app: who is signed in, the forms' CSRF, Stripe's failures, the desk page. */
export function operatorDesk(ctx: AppContext) {
  const { session, operatorOf, preNonce, preBinding } = operatorSession(ctx);

  function signInForm(event: H3Event, status: number, opts: { email?: string; error?: string; notice?: string } = {}): Promise<Response> {
    const { nonce, set } = preNonce(event);
    const csrf = preSessionCsrf(ctx, nonce);
    return withCookies(viewPage(ctx, status, "operator/sign-in", { state: "form", csrf, email: opts.email ?? "", error: opts.error, notice: opts.notice }), set);
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
        const unreachable = err.code === "upstream_error";
        return viewPage(ctx, unreachable ? 502 : 503, "operator/message", {
          title: "Stripe did not answer",
          lines: [
            { text: unreachable ? "Stripe could not be reached just now. Nothing was changed; try again in a minute." : "Payouts and billing through Stripe are not set up on this site." },
            { link: { href: "/operator", text: "Back to your desk" } },
          ],
        });
      }
      throw err;
    }
  }

  /** A town's desk (api/routes/operator/desk-page.ts) with the forms of this session. */
  function desk(event: H3Event, email: string, slug: string, status = 200, answer: DeskAnswer = {}): Promise<Response> {
    return deskPage(ctx, csrfToken(ctx, session(event)!), email, slug, status, answer);
  }

  return { session, operatorOf, preNonce, preBinding, signInForm, requireOperator, signedInPost, stripeTrouble, desk };
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
