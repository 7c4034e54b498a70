import type { IncomingMessage, ServerResponse } from "node:http";
import type { H3, H3Event } from "h3";
import type { InteractionDetails } from "oidc-provider";
import { ConsentForm, OPERATOR_SCOPES, OPERATOR_SCOPE_NAMES, operatorScopesIn, type OperatorScope } from "../../../src/contract/oauth.ts";
import { SignInForm } from "../../../src/contract/operator.ts";
import { AppError } from "../../../src/core/errors.ts";
import { operatorTowns } from "../../../src/services/commerce/operator-desk.ts";
import { csrfToken, csrfValid, preSessionCsrf } from "../../../src/services/operators/csrf.ts";
import { requestSignIn, SIGN_IN_LINK_MINUTES } from "../../../src/services/operators/sign-in.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { clientDisplayName } from "../../../src/core/oauth/client-name.ts";
import { allowClient } from "../../../src/services/oauth/grants.ts";
import { INTERACTION_PREFIX, type OAuthServer } from "../../../src/services/oauth/provider.ts";
import { clientAddress } from "../../http/client-address.ts";
import { viewPage } from "../../http/html-page.ts";
import { sitePagePolicy } from "../../http/security-headers.ts";
import { cookie, form, issues, operatorSession, RETURN_COOKIE, see, withCookies, type OperatorSession } from "../../http/operator-session.ts";

/**
 * Signing an AI client in, for a person: the authorization server sends the browser here
 * (`/operator/connect/{uid}`, under /operator so the desk's session cookie comes along). Not signed
 * in: the desk's own sign-in by emailed link, which brings them back here. Signed in: the consent
 * page names the client, where it sends the browser back, the towns and what it may do; Allow or Deny.
 */

const UID = /^[\w-]{10,64}$/;

const node = (event: H3Event) => event.runtime!.node as unknown as { req: IncomingMessage; res: ServerResponse };

/** The scopes a client asked for that are the operator's (all of them when it named none). */
function askedScopes(details: InteractionDetails): OperatorScope[] {
  const asked = operatorScopesIn(String(details.params.scope ?? ""));
  return asked.length ? asked : OPERATOR_SCOPE_NAMES;
}

const expired = (ctx: AppContext) => viewPage(ctx, 410, "oauth/connect", { state: "expired" });

function signInPage(ctx: AppContext, operator: OperatorSession, event: H3Event, uid: string, status = 200, opts: { email?: string; error?: string } = {}): Promise<Response> {
  const { nonce, set } = operator.preNonce(event);
  const csrf = preSessionCsrf(ctx, nonce);
  const page = viewPage(ctx, status, "oauth/connect", { state: "sign-in", action: `${INTERACTION_PREFIX}/${uid}/email`, csrf, email: opts.email ?? "", error: opts.error, minutes: SIGN_IN_LINK_MINUTES });
  return withCookies(page, set);
}

async function consentPage(ctx: AppContext, oauth: OAuthServer, operator: OperatorSession, event: H3Event, details: InteractionDetails, email: string): Promise<Response> {
  const client = await oauth.provider().Client.find(details.params.client_id);
  // Shown tidied and cut short (clientDisplayName); the page escapes it like everything the client chose.
  const name = clientDisplayName(client?.clientName, details.params.client_id);
  const redirect = URL.parse(String(details.params.redirect_uri ?? client?.redirectUris[0] ?? ""));
  const towns = operatorTowns(ctx, email).filter((l) => l.status === "active").map((l) => ({ town: l.town_name, state: l.state_name }));
  const scopes = askedScopes(details).map((scope) => ({ scope, text: OPERATOR_SCOPES[scope] }));
  const csrf = csrfToken(ctx, operator.session(event)!);
  // The answer redirects to the client's address: browsers hold a form's redirects to form-action too.
  const origin = redirect && /^https?:$/.test(redirect.protocol) ? redirect.origin : redirect ? redirect.protocol : undefined;
  return viewPage(ctx, 200, "oauth/consent", {
    client: name, email, returnsTo: redirect?.host || redirect?.protocol || "the client", towns, scopes, action: `${INTERACTION_PREFIX}/${details.uid}`, csrf,
  }, { headers: { "Content-Security-Policy": sitePagePolicy(origin ? [origin] : []), "X-Frame-Options": "DENY" } });
}

export function consentRoutes(app: H3, ctx: AppContext, oauth: OAuthServer): void {
  const operator = operatorSession(ctx);

  /** The interaction this browser is in (its cookie), when it is the one in the address. */
  async function interaction(event: H3Event): Promise<InteractionDetails | undefined> {
    const uid = event.context.params!.uid;
    if (!UID.test(uid)) return undefined;
    try {
      const details = await oauth.provider().interactionDetails(node(event).req, node(event).res);
      return details.uid === uid ? details : undefined;
    } catch {
      return undefined;
    }
  }

  app.get(`${INTERACTION_PREFIX}/:uid`, async (event) => {
    const details = await interaction(event);
    if (!details) return expired(ctx);
    const email = operator.operatorOf(event);
    if (!email) return signInPage(ctx, operator, event, details.uid);
    return consentPage(ctx, oauth, operator, event, details, email);
  });

  app.post(`${INTERACTION_PREFIX}/:uid/email`, async (event) => {
    const details = await interaction(event);
    if (!details) return expired(ctx);
    const body = await form(event);
    if (!csrfValid(ctx, operator.preBinding(event), body.get("csrf"))) return signInPage(ctx, operator, event, details.uid, 403, { error: "The page was too old; send the address again." });
    const parsed = SignInForm.safeParse({ email: body.get("email") ?? "" });
    if (!parsed.success) return signInPage(ctx, operator, event, details.uid, 400, { email: body.get("email") ?? "", error: issues(parsed).email });
    try {
      requestSignIn(ctx, parsed.data.email, clientAddress(event, ctx.config.mail.trustProxyHops));
    } catch (err) {
      if (err instanceof AppError && err.code === "rate_limited") return signInPage(ctx, operator, event, details.uid, 429, { email: parsed.data.email, error: "Too many sign-in links asked for this address. Try again later." });
      throw err;
    }
    const page = viewPage(ctx, 200, "oauth/connect", { state: "sent", email: parsed.data.email });
    return withCookies(page, [cookie(ctx, RETURN_COOKIE, `${INTERACTION_PREFIX}/${details.uid}`, 3600)]);
  });

  app.post(`${INTERACTION_PREFIX}/:uid`, async (event) => {
    const details = await interaction(event);
    if (!details) return expired(ctx);
    const email = operator.operatorOf(event);
    if (!email) return signInPage(ctx, operator, event, details.uid);
    const parsed = ConsentForm.safeParse(Object.fromEntries(await form(event)));
    if (!parsed.success || !csrfValid(ctx, operator.session(event), parsed.data.csrf)) return consentPage(ctx, oauth, operator, event, details, email);
    let result: Record<string, unknown>;
    if (parsed.data.decision === "deny") {
      result = { error: "access_denied", error_description: "The operator denied the client access." };
    } else {
      const grantId = await allowClient(ctx, oauth, { grantId: details.grantId, clientId: details.params.client_id }, email, askedScopes(details));
      result = { login: { accountId: email }, consent: { grantId } };
    }
    const to = await oauth.provider().interactionResult(node(event).req, node(event).res, result, { mergeWithLastSubmission: false });
    return see(to, [cookie(ctx, RETURN_COOKIE, "", 0)]);
  });
}
