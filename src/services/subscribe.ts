import type { SubscribeRequest, SubscribeResponse } from "../contract/subscribe.ts";
import { isDisposableEmail } from "../core/disposable-email.ts";
import { AppError, type FieldIssue } from "../core/errors.ts";
import { slugify } from "../core/slug.ts";
import { canonicalStateName, STATES } from "../core/states.ts";
import { localDate } from "../core/time.ts";
import { findEdition } from "../store/editions.ts";
import { enqueueMail } from "../store/outbox.ts";
import { findPlaceBySlug, type PlaceRow } from "../store/places.ts";
import { findSuppression, insertSubscriber, recordMailEvent, subscriberByReferralCode } from "../store/subscribers.ts";
import type { AppContext } from "./context.ts";

/** Every accepted request gets this answer, whether or not it had an effect, so a bot learns nothing. */
const ACCEPTED: SubscribeResponse = { success: true, message: "Thanks! Check your inbox for a welcome email." };

function stateOf(input: string): string | undefined {
  const code = input.trim().toUpperCase();
  return canonicalStateName(input) ?? STATES.find((s) => s.code === code)?.name;
}

/** The place named by the slug, which `city` and `state` must agree with. */
function placeFor(ctx: AppContext, req: SubscribeRequest): PlaceRow {
  const place = findPlaceBySlug(ctx.db, req.slug);
  if (!place) {
    const issues = [{ path: "slug", message: "no U.S. place has this slug; valid slugs are listed by /api/cities and /api/cities-census" }];
    throw new AppError("validation_error", `No U.S. place has the slug "${req.slug}".`, { issues });
  }
  const issues: FieldIssue[] = [];
  if (stateOf(req.state) !== place.state_name) {
    issues.push({ path: "state", message: `must be "${place.state_name}", the state of ${req.slug}` });
  }
  const city = slugify(req.city);
  if (city !== slugify(place.name) && city !== slugify(place.census_name)) {
    issues.push({ path: "city", message: `must be "${place.name}", the city of ${req.slug}` });
  }
  if (issues.length) {
    throw new AppError("validation_error", `city, state and slug disagree: ${issues.map((i) => i.path).join(" and ")} do not match ${req.slug}.`, { issues });
  }
  return place;
}

/**
 * The subscription whose share link this came through: the `ref` sent (the page's script reads it
 * from the address), else the `ref` of a referring page of this site (the form without JavaScript
 * posts from the page the share link opened).
 */
function referringSubscriber(ctx: AppContext, req: SubscribeRequest): number | null {
  let code = req.ref;
  if (!code && req.referrer) {
    try {
      const from = new URL(req.referrer);
      if (from.origin === new URL(ctx.config.baseUrl).origin) code = from.searchParams.get("ref") ?? undefined;
    } catch {
      // not a URL: no code
    }
  }
  if (!code || !/^[0-9a-f]{6,32}$/i.test(code)) return null;
  return subscriberByReferralCode(ctx.db, code) ?? null;
}

function silently(ctx: AppContext, reason: string): SubscribeResponse {
  ctx.log.info({ reason }, "subscribe silently rejected");
  return ACCEPTED;
}

/**
 * POST /api/subscribe: validates the place, silently drops abuse (honeypot, disposable domain,
 * suppressed address), then stores the subscription and queues the welcome email and the first
 * digest in one transaction, on disk before the answer (a group commit: src/store/group-commit.ts).
 * Subscribing again to the same city changes nothing.
 */
export async function subscribe(ctx: AppContext, req: SubscribeRequest): Promise<SubscribeResponse> {
  const place = placeFor(ctx, req);
  if (req.honeypot && req.honeypot.trim() !== "") return silently(ctx, "honeypot");
  const email = req.email.trim().toLowerCase();
  if (isDisposableEmail(email)) return silently(ctx, "disposable domain");
  if (findSuppression(ctx.db, email)) return silently(ctx, "suppressed address");

  const now = ctx.config.now();
  const nowIso = now.toISOString();
  const created = await ctx.commits.run(() => {
    // Today's edition in the city's own timezone, if the morning run has published it.
    const today = findEdition(ctx.db, place.geoid, localDate(now, place.timezone));
    const id = insertSubscriber(ctx.db, {
      email, placeGeoid: place.geoid, now: nowIso, firstDigestPending: !today,
      referrer: req.referrer, referredBy: referringSubscriber(ctx, req), utmSource: req.utm_source, utmMedium: req.utm_medium, utmCampaign: req.utm_campaign, landingPath: req.landing_path,
    });
    if (id === undefined) return false; // already subscribed (or left this city: an open form must not undo that)
    enqueueMail(ctx.db, "welcome", id, null, now.getTime(), nowIso);
    if (today) enqueueMail(ctx.db, "digest", id, today.id, now.getTime(), nowIso);
    recordMailEvent(ctx.db, { email, subscriberId: id, kind: "subscribed", source: "api", now: nowIso });
    return true;
  });
  ctx.log.info({ place: place.slug, created }, created ? "subscribed" : "subscribe repeated");
  if (created) ctx.mail.kick(); // the welcome email goes out now rather than at the sender's next tick
  return ACCEPTED;
}
