import type { SubscribeInput, SubscribeResponse } from "../../contract/subscribe.ts";
import { isDisposableEmail } from "../../core/mail/disposable-email.ts";
import { AppError, type FieldIssue } from "../../core/errors.ts";
import { referralCode, referralCodeOfPage } from "../../core/readers/referral.ts";
import { slugify } from "../../contract/slug.ts";
import { canonicalStateName, STATES } from "../../contract/states.ts";
import { findPlaceBySlug, type PlaceRow } from "../../store/places/places.ts";
import { findSuppression, subscriberByReferralCode } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";
import { askOwnerToConfirm } from "./resubscribe.ts";
import { startSubscription } from "./subscription-start.ts";

/** Every accepted request gets this answer, whether or not it had an effect, so a bot learns nothing. */
const ACCEPTED: SubscribeResponse = { success: true, message: "Thanks! Check your inbox for a welcome email." };

function stateOf(input: string): string | undefined {
  const code = input.trim().toUpperCase();
  return canonicalStateName(input) ?? STATES.find((s) => s.code === code)?.name;
}

/** The place named by the slug, which `city` and `state` must agree with when given (the MCP tool may leave them out). */
function placeFor(ctx: AppContext, req: SubscribeInput): PlaceRow {
  const place = findPlaceBySlug(ctx.db, req.slug);
  if (!place) {
    // Neutral words: the resolution of `validation_error` says, per transport, how to find a slug.
    const issues = [{ path: "slug", message: "no U.S. place has this slug; the place finder (find_place, /api/places?q=) gives any town's slug" }];
    throw new AppError("validation_error", `No U.S. place has the slug "${req.slug}".`, { issues });
  }
  const issues: FieldIssue[] = [];
  if (req.state !== undefined && stateOf(req.state) !== place.state_name) {
    issues.push({ path: "state", message: `must be "${place.state_name}", the state of ${req.slug}` });
  }
  const city = req.city === undefined ? undefined : slugify(req.city);
  if (city !== undefined && city !== slugify(place.name) && city !== slugify(place.census_name)) {
    issues.push({ path: "city", message: `must be "${place.name}", the city of ${req.slug}` });
  }
  if (issues.length) {
    const fields = issues.map((i) => i.path);
    throw new AppError("validation_error", `${fields.join(" and ")} ${fields.length === 1 ? "does" : "do"} not match the slug ${req.slug}.`, { issues });
  }
  return place;
}

/**
 * The subscription whose share link this came through: the `ref` sent (the page's script reads it
 * from the address), else the `ref` of a referring page of this site (the form without JavaScript
 * posts from the page the share link opened).
 */
function referringSubscriber(ctx: AppContext, req: SubscribeInput): number | null {
  const code = referralCode(req.ref) ?? referralCodeOfPage(req.referrer, ctx.config.baseUrl);
  return code ? subscriberByReferralCode(ctx.db, code) ?? null : null;
}

function silently(ctx: AppContext, reason: string): SubscribeResponse {
  ctx.log.info({ reason }, "subscribe silently rejected");
  return ACCEPTED;
}

/**
 * POST /api/subscribe: validates the place, silently drops abuse (honeypot, disposable domain), then
 * stores the subscription and queues the welcome email and the first digest (subscription-start.ts).
 * Subscribing again to a city one follows changes nothing; to a city one had left, it is active again
 * and welcomed again. An address that is suppressed (it unsubscribed from every city, bounced or
 * complained) is not subscribed on anyone's word: its owner gets one email a day at most asking to
 * confirm (resubscribe.ts), and nothing changes until they do. Staff's suppression stays, silently.
 * The answer is the same in every case.
 */
export async function subscribe(ctx: AppContext, req: SubscribeInput): Promise<SubscribeResponse> {
  const place = placeFor(ctx, req);
  if (req.honeypot && req.honeypot.trim() !== "") return silently(ctx, "honeypot");
  const email = req.email.trim().toLowerCase();
  if (isDisposableEmail(email)) return silently(ctx, "disposable domain");
  const suppression = findSuppression(ctx.db, email);
  if (suppression?.reason === "manual") return silently(ctx, "suppressed address");
  if (suppression) {
    await askOwnerToConfirm(ctx, email, place);
    return ACCEPTED;
  }
  await startSubscription(ctx, place, email, {
    referrer: req.referrer, referredBy: referringSubscriber(ctx, req), utmSource: req.utm_source, utmMedium: req.utm_medium, utmCampaign: req.utm_campaign, landingPath: req.landing_path,
  }, { source: "api" });
  return ACCEPTED;
}
