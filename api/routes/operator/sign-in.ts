import type { H3 } from "h3";
import { SignInForm } from "../../../src/contract/operator.ts";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { operatorHome } from "../../../src/services/commerce/operator-desk.ts";
import { csrfToken, csrfValid, preSessionCsrf } from "../../../src/services/operators/csrf.ts";
import { SESSION_HOURS, signOut } from "../../../src/services/operators/sessions.ts";
import { completeSignIn, requestSignIn, SIGN_IN_LINK_MINUTES, signInLinkUsable } from "../../../src/services/operators/sign-in.ts";
import { clientAddress } from "../../http/client-address.ts";
import { viewPage } from "../../http/html-page.ts";
import { cookie, form, issues, PRE_COOKIE, RETURN_COOKIE, returnAfterSignIn, see, SESSION_COOKIE, withCookies } from "../../http/operator-session.ts";
import { expiredCsrf, noticeOf, type OperatorDesk } from "./requests.ts";

/** The desk's door: the sign-in form or the operator's towns, the emailed one-time link, signing out. */
export function operatorSignInRoutes(app: H3, ctx: AppContext, { session, operatorOf, preNonce, preBinding, signInForm }: OperatorDesk): void {
  app.get("/operator", (event) => {
    const email = operatorOf(event);
    const notice = noticeOf(event.url.searchParams.get("done"));
    if (!email) return signInForm(event, 200, { notice });
    const csrf = csrfToken(ctx, session(event)!);
    return viewPage(ctx, 200, "operator/towns", { email, csrf, notice, ...operatorHome(ctx, email) });
  });

  app.post("/operator/sign-in", async (event) => {
    const body = await form(event);
    const typed = body.get("email") ?? "";
    if (!csrfValid(ctx, preBinding(event), body.get("csrf"))) return expiredCsrf(ctx);
    const parsed = SignInForm.safeParse({ email: typed });
    if (!parsed.success) return signInForm(event, 400, { email: typed, error: issues(parsed).email });
    try {
      requestSignIn(ctx, parsed.data.email, clientAddress(event, ctx.config.mail.trustProxyHops));
    } catch (err) {
      if (err instanceof AppError && err.code === "rate_limited") {
        return signInForm(event, 429, { email: typed, error: `Too many sign-in links asked for this address. ${err.message.replace(/^.*retry in/, "Try again in")}` });
      }
      throw err;
    }
    // The same page whether or not the address runs a town.
    return viewPage(ctx, 200, "operator/sign-in", { state: "sent", email: parsed.data.email, minutes: SIGN_IN_LINK_MINUTES });
  });

  const usedLink = () => viewPage(ctx, 410, "operator/sign-in", { state: "used", minutes: SIGN_IN_LINK_MINUTES });

  app.get("/operator/sign-in/:token", (event) => {
    const token = event.context.params!.token;
    if (!signInLinkUsable(ctx, token)) return usedLink();
    const { nonce, set } = preNonce(event);
    return withCookies(viewPage(ctx, 200, "operator/sign-in", { state: "confirm", token, csrf: preSessionCsrf(ctx, nonce) }, { headers: { "Referrer-Policy": "no-referrer" } }), set);
  });

  app.post("/operator/sign-in/:token", async (event) => {
    const body = await form(event);
    if (!csrfValid(ctx, preBinding(event), body.get("csrf"))) return expiredCsrf(ctx);
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
