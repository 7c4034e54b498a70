import type { H3 } from "h3";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { viewPage } from "../../http/html-page.ts";
import { operatorFeedRoutes } from "./feeds.ts";
import { operatorListingRoutes } from "./listings.ts";
import { operatorMoneyRoutes } from "./money.ts";
import { operatorNoteRoutes } from "./notes.ts";
import { operatorDesk } from "./requests.ts";
import { operatorSignInRoutes } from "./sign-in.ts";
import { operatorTownPageRoutes } from "./town-pages.ts";

/**
 * The operator desk, pages for people (forms post; errors next to their field; every form carries a
 * CSRF token):
 *   GET  /operator                               sign-in form, or the operator's towns when signed in
 *   POST /operator/sign-in                       emails a one-time link (same answer for every address)
 *   GET  /operator/sign-in/{token}               the link: a Sign in button (mail scanners that open links do not use it up)
 *   POST /operator/sign-in/{token}               uses the link once, starts the session (cookie), 303 to /operator
 *   POST /operator/sign-out
 *   GET  /operator/towns/{slug}                  the town's desk: listings to review, audience, money, lease, payouts
 *   GET  /operator/towns/{slug}/statement.csv, /operator/towns/{slug}/clicks.csv
 *   POST /operator/towns/{slug}/listings/{id}/approve | /reject
 *   POST /operator/towns/{slug}/note, /note/delete
 *   POST /operator/towns/{slug}/feeds, /feeds/{id}/remove, /directory/restore, /directory/check
 *   POST /operator/towns/{slug}/lease/cancel
 *   POST /operator/payouts/connect, GET /operator/payouts/refresh | /return   Stripe Connect onboarding
 * The old permanent links (/operator/{token}) answer 404 with the way to sign in. The routes live
 * in sign-in.ts, town-pages.ts (the desk and its CSVs), listings.ts, notes.ts, feeds.ts and money.ts
 * (lease, payouts), registered in that order; what they share (CSRF, Stripe's failures, the notices)
 * in requests.ts; the signed-in pages are drawn by src/pages/on-request/operator/ from the views
 * desk-page.ts hands them.
 */
export function operatorRoutes(app: H3, ctx: AppContext): void {
  const desk = operatorDesk(ctx);
  operatorSignInRoutes(app, ctx, desk);
  operatorTownPageRoutes(app, ctx, desk);
  operatorListingRoutes(app, ctx, desk);
  operatorNoteRoutes(app, ctx, desk);
  operatorFeedRoutes(app, ctx, desk);
  operatorMoneyRoutes(app, ctx, desk);

  // The permanent links of the old operator page (base64 of the address + a MAC) no longer open anything.
  app.get("/operator/:token", () => viewPage(ctx, 404, "operator/message", {
    title: "This operator link no longer works",
    lines: [{ text: "Operator pages now open with a sign-in link that works once. ", link: { href: "/operator", text: "Sign in with your email address" }, after: "." }],
  }));
}
