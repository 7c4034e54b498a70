import type { H3 } from "h3";
import { RejectForm } from "../../../src/contract/operator.ts";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { decideListing } from "../../../src/services/commerce/operator-desk.ts";
import { issues, see } from "../../http/operator-session.ts";
import { ORDER_ID, SLUG, type OperatorDesk } from "./requests.ts";

/** The operator's decision on a listing bought in their town: approve, or reject with a reason the buyer is sent. */
export function operatorListingRoutes(app: H3, ctx: AppContext, { signedInPost, desk }: OperatorDesk): void {
  app.post("/operator/towns/:slug/listings/:id/:decision", (event) => signedInPost(event, async (email, body) => {
    const { slug, id, decision } = event.context.params!;
    if (!SLUG.test(slug) || !ORDER_ID.test(id) || (decision !== "approve" && decision !== "reject")) return desk(event, email, "-");
    let reason: string | undefined;
    if (decision === "reject") {
      const parsed = RejectForm.safeParse({ reason: body.get("reason") ?? "" });
      if (!parsed.success) return desk(event, email, slug, 400, { errors: issues(parsed), orderId: id, values: { reason: body.get("reason") ?? "" } });
      reason = parsed.data.reason;
    }
    try {
      await decideListing(ctx, email, slug, id, decision, reason);
    } catch (err) {
      if (err instanceof AppError && (err.code === "conflict" || err.code === "not_found")) {
        return desk(event, email, slug, 409, { errors: { form: "That listing was decided already (by you in another window, or by citydaily's staff)." }, orderId: id });
      }
      throw err;
    }
    return see(`/operator/towns/${slug}?done=${decision === "approve" ? "approved" : "rejected"}#review`);
  }));
}
