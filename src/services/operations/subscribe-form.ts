import { operationsById } from "../../contract/operations/index.ts";
import type { SubscribeResponse } from "../../contract/subscribe.ts";
import { AppError, toFieldIssues, type FieldIssue } from "../../core/errors.ts";
import { placeOf, type SubscribeFormValues, type SubscribePageView } from "../../site/pages/readers.ts";
import { findPlaceBySlug } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { admit, runOperation, type Caller } from "./bindings.ts";

// POST /subscribe, the subscribe form without JavaScript (api/routes/readers/subscribe-form.ts): the
// very same operation as POST /api/subscribe (`admit` for the rate limit, the contract's body schema,
// then `runOperation`), so validation and silent rejections are identical, answered as a page's view.
// It lives beside the bindings it runs through (a readers service would import them upward).

const op = operationsById.subscribe;

/** What the form posted, as the route read it. */
export interface SubscribeFormPost extends SubscribeFormValues {
  honeypot: string;
  /** The page the form was posted from (the Referer), for the referral and the operation's `referrer`. */
  referrer?: string;
}

/** Only a local path may be linked back to (the field is posted by the browser, so anyone can fill it). */
function localPath(p: string): string | undefined {
  return /^\/(?![/\\])[^\s]*$/.test(p) ? p : undefined;
}

function formView(values: SubscribeFormValues, issues: FieldIssue[], detail: string, placeName: string | undefined): SubscribePageView {
  const errors = { email: [] as string[], town: [] as string[] };
  // Town fields are hidden on the form: their errors are about the town the reader picked.
  for (const i of issues) errors[i.path === "email" ? "email" : "town"].push(i.message);
  const place = placeName ?? ([values.city, values.state].filter(Boolean).join(", ") || values.slug || "no town chosen");
  return { kind: "form", detail, values, errors, place, back: localPath(values.landing_path) };
}

/**
 * The form's answer: `busy` (the rate limit, taken before the body is read so that bots and malformed
 * posts use up the allowance too), the form again with each error (`form`), or the thanks, the same
 * for every address (as the operation's answer is).
 */
export async function subscribeByForm(ctx: AppContext, caller: Caller, read: () => Promise<SubscribeFormPost>): Promise<SubscribePageView> {
  try {
    admit(ctx, op, caller);
  } catch (err) {
    if (err instanceof AppError && err.code === "rate_limited") return { kind: "busy", retrySeconds: err.headers?.["Retry-After"] ?? "60" };
    throw err;
  }
  const { honeypot, referrer, ...values } = await read();
  // The town picker sends only the slug; the named town is then the place of that slug.
  const place = values.slug ? findPlaceBySlug(ctx.db, values.slug) : undefined;
  if (place && !values.city && !values.state) {
    values.city = place.name;
    values.state = place.state_name;
  }
  const placeName = place ? placeOf(place) : undefined;
  const parsed = op.body.safeParse({
    email: values.email, slug: values.slug, city: values.city, state: values.state, honeypot,
    landing_path: values.landing_path || undefined, referrer, ...(values.ref ? { ref: values.ref } : {}),
  });
  if (!parsed.success) return formView(values, toFieldIssues(parsed.error.issues), "Something in the form needs a change.", placeName);
  try {
    const answer = (await runOperation(ctx, op, parsed.data, caller)).data as SubscribeResponse;
    return { kind: "thanks", message: answer.message ?? "Thanks! Check your inbox for a welcome email.", email: values.email, place: placeName ?? `${values.city}, ${values.state}`, slug: values.slug };
  } catch (err) {
    if (err instanceof AppError && err.code === "validation_error") return formView(values, err.issues ?? [], err.message, placeName);
    throw err;
  }
}
