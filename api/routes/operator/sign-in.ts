import type { H3 } from "h3";
import { parseCookies } from "h3";
import { SignInForm } from "../../../src/contract/operator.ts";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import {
  completeSignIn, csrfToken, csrfValid, operatorTowns, requestSignIn, SESSION_HOURS, SIGN_IN_LINK_MINUTES, signInLinkUsable, signOut,
} from "../../../src/services/commerce/operator-desk.ts";
import { payoutAccount } from "../../../src/services/commerce/payouts.ts";
import { clientAddress } from "../../http/client-address.ts";
import { htmlPage } from "../../http/html-page.ts";
import { townsPage } from "./pages.ts";
import { RETURN_COOKIE, returnAfterSignIn } from "../oauth/consent.ts";
import { cookie, expiredCsrf, form, issues, noticeOf, PRE_COOKIE, see, SESSION_COOKIE, withCookies, type OperatorDesk } from "./requests.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/** The desk's door: the sign-in form or the operator's towns, the emailed one-time link, signing out. */
export function operatorSignInRoutes(app: H3, ctx: AppContext, { session, operatorOf, preNonce, signInForm }: OperatorDesk): void {
  app.get("/operator", (event) => {
    const email = operatorOf(event);
    const notice = noticeOf(event.url.searchParams.get("done"));
    if (!email) return signInForm(event, 200, { notice });
    const csrf = csrfToken(ctx, session(event)!);
    return htmlPage(ctx, 200, "Operator desk", townsPage(operatorTowns(ctx, email), { email, csrf, notice, account: payoutAccount(ctx, email), stripe: !!ctx.connect }));
  });

  app.post("/operator/sign-in", async (event) => {
    const body = await form(event);
    const nonce = parseCookies(event)[PRE_COOKIE];
    const typed = body.get("email") ?? "";
    if (!csrfValid(ctx, nonce ? `pre:${nonce}` : undefined, body.get("csrf"))) return expiredCsrf(ctx);
    const parsed = SignInForm.safeParse({ email: typed });
    if (!parsed.success) return signInForm(event, 400, { email: typed, errors: issues(parsed) });
    try {
      requestSignIn(ctx, parsed.data.email, clientAddress(event, ctx.config.mail.trustProxyHops));
    } catch (err) {
      if (err instanceof AppError && err.code === "rate_limited") {
        return signInForm(event, 429, { email: typed, errors: { email: `Too many sign-in links asked for this address. ${err.message.replace(/^.*retry in/, "Try again in")}` } });
      }
      throw err;
    }
    // The same page whether or not the address runs a town.
    return htmlPage(ctx, 200, "Check your email", `<p class="notice" role="status">If <strong>${e(parsed.data.email)}</strong> runs a town on citydaily, a sign-in link is on its way to it.</p>
<p>The link works once, for ${SIGN_IN_LINK_MINUTES} minutes. Nothing arrived? Check the address you leased your town with, look in your spam folder, or <a href="/operator">ask for a new link</a>.</p>`);
  });

  const usedLink = () => htmlPage(ctx, 410, "This sign-in link no longer works", `<p>A sign-in link works once, for ${SIGN_IN_LINK_MINUTES} minutes. This one was used already or has expired.</p>
<p><a href="/operator">Ask for a new link</a></p>`);

  app.get("/operator/sign-in/:token", (event) => {
    const token = event.context.params!.token;
    if (!signInLinkUsable(ctx, token)) return usedLink();
    const { nonce, set } = preNonce(event);
    return withCookies(htmlPage(ctx, 200, "Sign in to the operator desk", `<p>Press the button to sign in on this device. The link then stops working.</p>
<form method="post" action="/operator/sign-in/${e(token)}"><input type="hidden" name="csrf" value="${e(csrfToken(ctx, `pre:${nonce}`))}">
<div class="actions"><button type="submit">Sign in</button></div></form>`, { headers: { "Referrer-Policy": "no-referrer" } }), set);
  });

  app.post("/operator/sign-in/:token", async (event) => {
    const body = await form(event);
    const nonce = parseCookies(event)[PRE_COOKIE];
    if (!csrfValid(ctx, nonce ? `pre:${nonce}` : undefined, body.get("csrf"))) return expiredCsrf(ctx);
    const started = completeSignIn(ctx, event.context.params!.token);
    if (!started) return usedLink();
    // Signing in to connect an AI client: back to its consent page (api/routes/oauth/consent.ts).
    const back = returnAfterSignIn(event);
    return see(back ?? "/operator", [cookie(ctx, SESSION_COOKIE, started.sessionId, SESSION_HOURS * 3600), cookie(ctx, PRE_COOKIE, "", 0), ...(back ? [cookie(ctx, RETURN_COOKIE, "", 0)] : [])]);
  });

  app.post("/operator/sign-out", async (event) => {
    const body = await form(event);
    if (!csrfValid(ctx, session(event), body.get("csrf"))) return expiredCsrf(ctx);
    signOut(ctx, session(event));
    return see("/operator?done=signed-out", [cookie(ctx, SESSION_COOKIE, "", 0)]);
  });
}
