import type { IncomingMessage, ServerResponse } from "node:http";
import { parseCookies, type H3, type H3Event } from "h3";
import type { InteractionDetails } from "oidc-provider";
import { ConsentForm, OPERATOR_SCOPES, OPERATOR_SCOPE_NAMES, operatorScopesIn, type OperatorScope } from "../../../src/contract/oauth.ts";
import { SignInForm } from "../../../src/contract/operator.ts";
import { AppError } from "../../../src/core/errors.ts";
import { csrfToken, csrfValid, operatorTowns, requestSignIn, SIGN_IN_LINK_MINUTES } from "../../../src/services/commerce/operator-desk.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { clientDisplayName } from "../../../src/core/oauth/client-name.ts";
import { allowClient } from "../../../src/services/oauth/grants.ts";
import { INTERACTION_PREFIX, type OAuthServer } from "../../../src/services/oauth/provider.ts";
import { clientAddress } from "../../http/client-address.ts";
import { htmlDocument, htmlHeaders, htmlPage } from "../../http/html-page.ts";
import { sitePagePolicy } from "../../http/security-headers.ts";
import { cookie, form, issues, operatorDesk, see, withCookies, type OperatorDesk } from "../operator/requests.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * Signing an AI client in, for a person: the authorization server sends the browser here
 * (`/operator/connect/{uid}`, under /operator so the desk's session cookie comes along). Not signed
 * in: the desk's own sign-in by emailed link, which brings them back here. Signed in: the consent
 * page names the client, where it sends the browser back, the towns and what it may do; Allow or Deny.
 */

/** Where the sign-in link's Sign in button leads once it has signed the person in (api/routes/operator/sign-in.ts). */
export const RETURN_COOKIE = "cd_operator_return";
const UID = /^[\w-]{10,64}$/;

/** The consent page the browser should come back to after signing in, if the sign-in started from one. */
export function returnAfterSignIn(event: H3Event): string | undefined {
  const to = parseCookies(event)[RETURN_COOKIE];
  return to && new RegExp(`^${INTERACTION_PREFIX}/[\\w-]{10,64}$`).test(to) ? to : undefined;
}

const node = (event: H3Event) => event.runtime!.node as unknown as { req: IncomingMessage; res: ServerResponse };

/** The scopes a client asked for that are the operator's (all of them when it named none). */
function askedScopes(details: InteractionDetails): OperatorScope[] {
  const asked = operatorScopesIn(String(details.params.scope ?? ""));
  return asked.length ? asked : OPERATOR_SCOPE_NAMES;
}

const expired = (ctx: AppContext) => htmlPage(ctx, 410, "This sign-in request has expired", `<p>Signing your AI client in takes a few steps, within an hour, in one browser. This one is over or was opened elsewhere.</p>
<p>Go back to your AI client and connect to citydaily again: it opens a new request.</p>`);

async function signInPage(ctx: AppContext, desk: OperatorDesk, event: H3Event, uid: string, status = 200, opts: { email?: string; error?: string } = {}): Promise<Response> {
  const { nonce, set } = desk.preNonce(event);
  const body = `<p>An AI client asks to act for you on citydaily. First, sign in as the operator of your town.</p>
<form method="post" action="${INTERACTION_PREFIX}/${e(uid)}/email" novalidate>
<input type="hidden" name="csrf" value="${e(csrfToken(ctx, `pre:${nonce}`))}">
<label for="email">Email address you leased your town with</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${e(opts.email ?? "")}"${opts.error ? ` aria-invalid="true" aria-describedby="email-error"` : ""}>
${opts.error ? `<p class="field-error" id="email-error">${e(opts.error)}</p>` : ""}
<p class="status">We email you a link that signs you in and brings you back here. It works once, for ${SIGN_IN_LINK_MINUTES} minutes, in this browser.</p>
<div class="actions"><button type="submit">Email me a sign-in link</button></div>
</form>`;
  return withCookies(htmlPage(ctx, status, "Sign in to connect your AI client", body), set);
}

async function consentPage(ctx: AppContext, oauth: OAuthServer, desk: OperatorDesk, event: H3Event, details: InteractionDetails, email: string): Promise<Response> {
  const client = await oauth.provider().Client.find(details.params.client_id);
  // Shown tidied and cut short (clientDisplayName), and escaped like everything the client chose.
  const name = clientDisplayName(client?.clientName, details.params.client_id);
  const redirect = URL.parse(String(details.params.redirect_uri ?? client?.redirectUris[0] ?? ""));
  const towns = operatorTowns(ctx, email).filter((l) => l.status === "active");
  const scopes = askedScopes(details);
  const csrf = csrfToken(ctx, desk.session(event)!);
  const townList = towns.length ? `<ul data-testid="towns">${towns.map((l) => `<li>${e(l.town_name)}, ${e(l.state_name)}</li>`).join("")}</ul>` : `<p data-testid="towns">You run no town at the moment, so it could do nothing yet.</p>`;
  const body = `<p><strong data-testid="client-name">${e(name)}</strong> asks to act for you, <strong>${e(email)}</strong>, on citydaily. After your answer your browser goes back to <strong data-testid="redirect-host">${e(redirect?.host || redirect?.protocol || "the client")}</strong>.</p>
<h2>For your towns</h2>
${townList}
<h2>It could</h2>
<ul data-testid="scopes">${scopes.map((s) => `<li>${e(OPERATOR_SCOPES[s])} <span class="status">(${e(s)})</span></li>`).join("")}</ul>
<p>It keeps access until you take it back on your desk (<a href="/operator/clients">Connected AI clients</a>) or your lease ends. It cannot spend money, change your lease or payouts, or see your readers' addresses.</p>
<form method="post" action="${INTERACTION_PREFIX}/${e(details.uid)}">
<input type="hidden" name="csrf" value="${e(csrf)}">
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>`;
  const html = await htmlDocument(ctx, `Allow ${name} to act for you?`, body);
  // The answer redirects to the client's address: browsers hold a form's redirects to form-action too.
  const origin = redirect && /^https?:$/.test(redirect.protocol) ? redirect.origin : redirect ? redirect.protocol : undefined;
  return new Response(html, { headers: htmlHeaders({ "Content-Security-Policy": sitePagePolicy(origin ? [origin] : []), "X-Frame-Options": "DENY" }) });
}

export function consentRoutes(app: H3, ctx: AppContext, oauth: OAuthServer): void {
  const desk = operatorDesk(ctx);

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
    const email = desk.operatorOf(event);
    if (!email) return signInPage(ctx, desk, event, details.uid);
    return consentPage(ctx, oauth, desk, event, details, email);
  });

  app.post(`${INTERACTION_PREFIX}/:uid/email`, async (event) => {
    const details = await interaction(event);
    if (!details) return expired(ctx);
    const body = await form(event);
    const nonce = parseCookies(event)[`cd_operator_pre`];
    if (!csrfValid(ctx, nonce ? `pre:${nonce}` : undefined, body.get("csrf"))) return signInPage(ctx, desk, event, details.uid, 403, { error: "The page was too old; send the address again." });
    const parsed = SignInForm.safeParse({ email: body.get("email") ?? "" });
    if (!parsed.success) return signInPage(ctx, desk, event, details.uid, 400, { email: body.get("email") ?? "", error: issues(parsed).email });
    try {
      requestSignIn(ctx, parsed.data.email, clientAddress(event, ctx.config.mail.trustProxyHops));
    } catch (err) {
      if (err instanceof AppError && err.code === "rate_limited") return signInPage(ctx, desk, event, details.uid, 429, { email: parsed.data.email, error: "Too many sign-in links asked for this address. Try again later." });
      throw err;
    }
    const page = htmlPage(ctx, 200, "Check your email", `<p class="notice" role="status">If <strong>${e(parsed.data.email)}</strong> runs a town on citydaily, a sign-in link is on its way to it.</p>
<p>Open it in this browser and press Sign in: you come back here to allow or deny the AI client.</p>`);
    return withCookies(page, [cookie(ctx, RETURN_COOKIE, `${INTERACTION_PREFIX}/${details.uid}`, 3600)]);
  });

  app.post(`${INTERACTION_PREFIX}/:uid`, async (event) => {
    const details = await interaction(event);
    if (!details) return expired(ctx);
    const email = desk.operatorOf(event);
    if (!email) return signInPage(ctx, desk, event, details.uid);
    const parsed = ConsentForm.safeParse(Object.fromEntries(await form(event)));
    if (!parsed.success || !csrfValid(ctx, desk.session(event), parsed.data.csrf)) return consentPage(ctx, oauth, desk, event, details, email);
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
