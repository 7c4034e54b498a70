import type { H3 } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { cancelLease } from "../../../src/services/commerce/operator-desk.ts";
import { refreshPayoutAccount, startPayoutOnboarding } from "../../../src/services/commerce/payouts.ts";
import { see } from "../../http/operator-session.ts";
import { SLUG, type OperatorDesk } from "./requests.ts";

/** The operator's money with Stripe: cancelling the lease, and the payout account's Connect onboarding. */
export function operatorMoneyRoutes(app: H3, ctx: AppContext, { requireOperator, signedInPost, stripeTrouble, desk }: OperatorDesk): void {
  app.post("/operator/towns/:slug/lease/cancel", (event) => signedInPost(event, async (email) => {
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    const r = await cancelLease(ctx, email, slug);
    return "portalUrl" in r ? see(r.portalUrl) : see(`/operator/towns/${slug}?done=cancelled#lease`);
  }));

  app.post("/operator/payouts/connect", (event) => signedInPost(event, async (email) => see(await startPayoutOnboarding(ctx, email))));
  app.get("/operator/payouts/refresh", async (event) => {
    const email = requireOperator(event);
    if (email instanceof Response) return email;
    return stripeTrouble(async () => see(await startPayoutOnboarding(ctx, email)));
  });
  app.get("/operator/payouts/return", async (event) => {
    const email = requireOperator(event);
    if (email instanceof Response) return email;
    return stripeTrouble(async () => {
      const account = await refreshPayoutAccount(ctx, email);
      return see(`/operator?done=${account?.payoutsEnabled ? "payouts-on" : "payouts-pending"}`);
    });
  });
}
