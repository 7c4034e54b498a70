import type { H3 } from "h3";
import { OPERATOR_SCOPES, type OperatorScope } from "../../../src/contract/oauth.ts";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { connectedClients, revokeClient } from "../../../src/services/oauth/grants.ts";
import { csrfToken, csrfValid } from "../../../src/services/operators/csrf.ts";
import { formatInstantUtc } from "../../../src/site/format.ts";
import { viewPage } from "../../http/html-page.ts";
import { form, operatorSession, see } from "../../http/operator-session.ts";

/** The desk's list of AI clients that hold access to the operator's towns, each with a Revoke button. */
export function connectedClientRoutes(app: H3, ctx: AppContext): void {
  const operator = operatorSession(ctx);
  app.get("/operator/clients", (event) => {
    const email = operator.operatorOf(event);
    if (!email) return see("/operator");
    const notice = event.url.searchParams.get("done") === "revoked" ? "Revoked: that client can no longer act for you." : undefined;
    const clients = connectedClients(ctx, email).map((c) => ({
      grantId: c.grantId, name: c.name, redirectHosts: c.redirectHosts, since: formatInstantUtc(c.since),
      scopes: c.scopes.map((s) => OPERATOR_SCOPES[s as OperatorScope] ?? s).join("; "),
    }));
    return viewPage(ctx, 200, "oauth/clients", { clients, csrf: csrfToken(ctx, operator.session(event)!), notice });
  });

  app.post("/operator/clients/:grant/revoke", async (event) => {
    const email = operator.operatorOf(event);
    if (!email) return see("/operator");
    const body = await form(event);
    if (!csrfValid(ctx, operator.session(event), body.get("csrf"))) return viewPage(ctx, 403, "operator/sign-in", { state: "form-expired" });
    try {
      revokeClient(ctx, email, event.context.params!.grant);
    } catch (err) {
      if (!(err instanceof AppError && err.code === "not_found")) throw err;
    }
    return see("/operator/clients?done=revoked");
  });
}
