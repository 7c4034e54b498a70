import type { H3, H3Event } from "h3";
import { parseCookies } from "h3";
import type { z } from "zod";
import { RejectForm, SignInForm } from "../../src/contract/operator.ts";
import { AppError } from "../../src/core/errors.ts";
import { escapeHtml as e } from "../../src/core/edition/email-render.ts";
import { formatCents } from "../../src/core/commerce/pricing.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import {
  addDeskFeed, cancelLease, completeSignIn, csrfToken, csrfValid, decideListing, newNonce, operatorTowns, previewNote, checkDeskDirectory, removeDeskFeed, removeNote, restoreDeskDirectorySource, requestSignIn, saveNote, SESSION_HOURS, sessionOperator,
  SIGN_IN_LINK_MINUTES, signInLinkUsable, signOut, statementCsvOf, clicksCsvOf, townDesk,
} from "../../src/services/commerce/operator-desk.ts";
import { payoutAccount, refreshPayoutAccount, startPayoutOnboarding } from "../../src/services/commerce/payouts.ts";
import { readBodyText } from "../body.ts";
import { htmlPage } from "../html-page.ts";
import { deskPage, signInPage, townsPage, type DeskOptions, type FieldErrors } from "./operator-pages.ts";

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
 *   POST /operator/towns/{slug}/lease/cancel
 *   POST /operator/payouts/connect, GET /operator/payouts/refresh | /return   Stripe Connect onboarding
 * The old permanent links (/operator/{token}) answer 404 with the way to sign in.
 */
const SESSION_COOKIE = "cd_operator";
/** A random nonce for the forms shown before sign-in, which their CSRF token is bound to. */
const PRE_COOKIE = "cd_operator_pre";
const SLUG = /^[a-z0-9-]{1,120}$/;
const ORDER_ID = /^lo_[0-9a-f-]{36}$/;

function cookie(ctx: AppContext, name: string, value: string, maxAgeSeconds: number): string {
  const secure = ctx.config.baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=/operator; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

async function form(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(await readBodyText(event).catch(() => ""));
}

const see = (to: string, cookies: string[] = []) => {
  const headers = new Headers({ Location: to, "Cache-Control": "no-store" });
  for (const c of cookies) headers.append("Set-Cookie", c);
  return new Response(null, { status: 303, headers });
};

async function withCookies(page: Promise<Response>, cookies: string[]): Promise<Response> {
  const res = await page;
  for (const c of cookies) res.headers.append("Set-Cookie", c);
  return res;
}

function issues(result: z.ZodSafeParseError<unknown>): FieldErrors {
  const out: FieldErrors = {};
  for (const i of result.error.issues) out[String(i.path[0] ?? "form")] ??= i.message;
  return out;
}

const expiredCsrf = (ctx: AppContext) => htmlPage(ctx, 403, "This form has expired", `<p>The page you sent it from is too old or was opened in another browser. <a href="/operator">Open the operator desk again</a> and send it once more.</p>`);

export function operatorRoutes(app: H3, ctx: AppContext): void {
  const session = (event: H3Event) => parseCookies(event)[SESSION_COOKIE];
  const operatorOf = (event: H3Event) => sessionOperator(ctx, session(event));

  /** The pre-session nonce (set it when the page shows a form and the browser has none yet). */
  function preNonce(event: H3Event): { nonce: string; set: string[] } {
    const have = parseCookies(event)[PRE_COOKIE];
    if (have && /^[\w-]{43}$/.test(have)) return { nonce: have, set: [] };
    const nonce = newNonce();
    return { nonce, set: [cookie(ctx, PRE_COOKIE, nonce, 3600)] };
  }

  function signInForm(event: H3Event, status: number, opts: { email?: string; errors?: FieldErrors; notice?: string } = {}): Promise<Response> {
    const { nonce, set } = preNonce(event);
    return withCookies(htmlPage(ctx, status, "Operator desk: sign in", signInPage(csrfToken(ctx, `pre:${nonce}`), opts)), set);
  }

  /** The signed-in operator, or a redirect to the sign-in page. */
  function requireOperator(event: H3Event): string | Response {
    return operatorOf(event) ?? see("/operator");
  }

  async function signedInPost(event: H3Event, act: (email: string, body: URLSearchParams) => Promise<Response> | Response): Promise<Response> {
    const email = operatorOf(event);
    if (!email) return see("/operator");
    const body = await form(event);
    if (!csrfValid(ctx, session(event), body.get("csrf"))) return expiredCsrf(ctx);
    return stripeTrouble(() => act(email, body));
  }

  /** Stripe unreachable (or not configured) while the desk calls it: a page saying so, not problem+json. */
  async function stripeTrouble(act: () => Promise<Response> | Response): Promise<Response> {
    try {
      return await act();
    } catch (err) {
      if (err instanceof AppError && (err.code === "upstream_error" || err.code === "service_misconfigured")) {
        ctx.log.warn({ err: err.message }, "operator desk: the payment provider could not be used");
        return htmlPage(ctx, err.code === "upstream_error" ? 502 : 503, "Stripe did not answer", `<p>${err.code === "upstream_error" ? "Stripe could not be reached just now. Nothing was changed; try again in a minute." : "Payouts and billing through Stripe are not set up on this site."}</p>
<p><a href="/operator">Back to your desk</a></p>`);
      }
      throw err;
    }
  }

  function desk(event: H3Event, email: string, slug: string, status = 200, opts: Omit<DeskOptions, "email" | "csrf"> = {}): Promise<Response> {
    try {
      const view = townDesk(ctx, email, slug);
      return htmlPage(ctx, status, `${view.lease.town_name}: operator desk`, deskPage(view, { email, csrf: csrfToken(ctx, session(event)!), ...opts }));
    } catch (err) {
      if (err instanceof AppError && err.code === "not_found") return htmlPage(ctx, 404, "Not one of your towns", `<p>You do not run this town. <a href="/operator">Your towns</a></p>`);
      throw err;
    }
  }

  app.get("/operator", (event) => {
    const email = operatorOf(event);
    const notice = noticeOf(event.url.searchParams.get("done"));
    if (!email) return signInForm(event, 200, { notice });
    const csrf = csrfToken(ctx, session(event)!);
    return htmlPage(ctx, 200, "Operator desk", townsPage(operatorTowns(ctx, email), { email, csrf, notice, account: payoutAccount(ctx, email), stripe: !!ctx.connect }));
  });

  app.post("/operator/sign-in", async (event) => {
    const body = await form(event);
    const nonce = parseCookies(event)[PRE_COOKIE];
    const typed = body.get("email") ?? "";
    if (!csrfValid(ctx, nonce ? `pre:${nonce}` : undefined, body.get("csrf"))) return expiredCsrf(ctx);
    const parsed = SignInForm.safeParse({ email: typed });
    if (!parsed.success) return signInForm(event, 400, { email: typed, errors: issues(parsed) });
    try {
      requestSignIn(ctx, parsed.data.email);
    } catch (err) {
      if (err instanceof AppError && err.code === "rate_limited") {
        return signInForm(event, 429, { email: typed, errors: { email: `Too many sign-in links asked for this address. ${err.message.replace(/^.*retry in/, "Try again in")}` } });
      }
      throw err;
    }
    // The same page whether or not the address runs a town.
    return htmlPage(ctx, 200, "Check your email", `<p class="notice" role="status">If <strong>${e(parsed.data.email)}</strong> runs a town on citydaily, a sign-in link is on its way to it.</p>
<p>The link works once, for ${SIGN_IN_LINK_MINUTES} minutes. Nothing arrived? Check the address you leased your town with, look in your spam folder, or <a href="/operator">ask for a new link</a>.</p>`);
  });

  const usedLink = () => htmlPage(ctx, 410, "This sign-in link no longer works", `<p>A sign-in link works once, for ${SIGN_IN_LINK_MINUTES} minutes. This one was used already or has expired.</p>
<p><a href="/operator">Ask for a new link</a></p>`);

  app.get("/operator/sign-in/:token", (event) => {
    const token = event.context.params!.token;
    if (!signInLinkUsable(ctx, token)) return usedLink();
    const { nonce, set } = preNonce(event);
    return withCookies(htmlPage(ctx, 200, "Sign in to the operator desk", `<p>Press the button to sign in on this device. The link then stops working.</p>
<form method="post" action="/operator/sign-in/${e(token)}"><input type="hidden" name="csrf" value="${e(csrfToken(ctx, `pre:${nonce}`))}">
<div class="actions"><button type="submit">Sign in</button></div></form>`, { headers: { "Referrer-Policy": "no-referrer" } }), set);
  });

  app.post("/operator/sign-in/:token", async (event) => {
    const body = await form(event);
    const nonce = parseCookies(event)[PRE_COOKIE];
    if (!csrfValid(ctx, nonce ? `pre:${nonce}` : undefined, body.get("csrf"))) return expiredCsrf(ctx);
    const started = completeSignIn(ctx, event.context.params!.token);
    if (!started) return usedLink();
    return see("/operator", [cookie(ctx, SESSION_COOKIE, started.sessionId, SESSION_HOURS * 3600), cookie(ctx, PRE_COOKIE, "", 0)]);
  });

  app.post("/operator/sign-out", async (event) => {
    const body = await form(event);
    if (!csrfValid(ctx, session(event), body.get("csrf"))) return expiredCsrf(ctx);
    signOut(ctx, session(event));
    return see("/operator?done=signed-out", [cookie(ctx, SESSION_COOKIE, "", 0)]);
  });

  app.get("/operator/towns/:slug", (event) => {
    const email = requireOperator(event);
    if (email instanceof Response) return email;
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    return desk(event, email, slug, 200, { notice: noticeOf(event.url.searchParams.get("done")) });
  });

  // The desk's downloads: the statement and the clicks per edition, each a CSV of one of the operator's towns.
  const deskCsv = (name: string, of: (ctx: AppContext, email: string, slug: string) => string) => app.get(`/operator/towns/:slug/${name}.csv`, (event) => {
    const email = requireOperator(event);
    if (email instanceof Response) return email;
    const slug = event.context.params!.slug;
    try {
      const text = of(ctx, email, SLUG.test(slug) ? slug : "-");
      return new Response(text, { headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="citydaily-${slug}-${name}.csv"`, "Cache-Control": "no-store" } });
    } catch (err) {
      if (err instanceof AppError && err.code === "not_found") return htmlPage(ctx, 404, "Not one of your towns", `<p><a href="/operator">Your towns</a></p>`);
      throw err;
    }
  });
  deskCsv("statement", statementCsvOf);
  deskCsv("clicks", clicksCsvOf);

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

  app.post("/operator/towns/:slug/note", (event) => signedInPost(event, (email, body) => {
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    const values = { markdown: body.get("markdown") ?? "", authorName: body.get("authorName") ?? "", date: body.get("date") ?? "" };
    if (body.get("action") === "preview") {
      const preview = previewNote(ctx, email, slug, values.markdown, values.authorName);
      const errors: FieldErrors = {};
      if (!preview) errors.markdown = "Nothing a reader would see yet: write a sentence or two.";
      return desk(event, email, slug, 200, { note: { values, preview, errors } });
    }
    try {
      saveNote(ctx, email, slug, values);
    } catch (err) {
      if (err instanceof AppError && err.code === "validation_error") {
        const errors: FieldErrors = {};
        for (const i of err.issues ?? []) errors[i.path] ??= i.message;
        if (!err.issues?.length) errors.form = err.message;
        return desk(event, email, slug, 400, { note: { values, errors } });
      }
      throw err;
    }
    return see(`/operator/towns/${slug}?done=note-saved#note`);
  }));

  app.post("/operator/towns/:slug/note/delete", (event) => signedInPost(event, (email, body) => {
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    removeNote(ctx, email, slug, body.get("date") ?? "");
    return see(`/operator/towns/${slug}?done=note-deleted#note`);
  }));

  app.post("/operator/towns/:slug/feeds", (event) => signedInPost(event, async (email, body) => {
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    const url = (body.get("url") ?? "").slice(0, 4000);
    if (!url.trim()) return desk(event, email, slug, 400, { feed: { url, error: "Paste the address of the calendar (.ics) or the RSS or Atom feed." } });
    try {
      await addDeskFeed(ctx, email, slug, url);
    } catch (err) {
      // The feeds service's problems (not a feed, unreachable, too large, private address, already there) go next to the field.
      if (err instanceof AppError && err.code === "not_found") return desk(event, email, slug);
      if (err instanceof AppError && err.code !== "internal_error") return desk(event, email, slug, 400, { feed: { url, error: err.message } });
      throw err;
    }
    return see(`/operator/towns/${slug}?done=feed-added#feeds`);
  }));

  app.post("/operator/towns/:slug/feeds/:id/remove", (event) => signedInPost(event, (email) => {
    const { slug, id } = event.context.params!;
    if (!SLUG.test(slug) || !/^\d{1,15}$/.test(id)) return desk(event, email, "-");
    try {
      removeDeskFeed(ctx, email, slug, Number(id));
    } catch (err) {
      if (!(err instanceof AppError && err.code === "not_found")) throw err;
    }
    return see(`/operator/towns/${slug}?done=feed-removed#feeds`);
  }));

  app.post("/operator/towns/:slug/directory/restore", (event) => signedInPost(event, async (email, body) => {
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    try {
      await restoreDeskDirectorySource(ctx, email, slug, (body.get("url") ?? "").slice(0, 4000));
    } catch (err) {
      if (!(err instanceof AppError && err.code === "not_found")) throw err;
    }
    return see(`/operator/towns/${slug}?done=directory-restored#feeds`);
  }));

  app.post("/operator/towns/:slug/directory/check", (event) => signedInPost(event, async (email) => {
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    try {
      await checkDeskDirectory(ctx, email, slug);
    } catch (err) {
      if (!(err instanceof AppError && err.code === "not_found")) throw err;
    }
    return see(`/operator/towns/${slug}?done=directory-checked#feeds`);
  }));

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

  // The permanent links of the old operator page (base64 of the address + a MAC) no longer open anything.
  app.get("/operator/:token", () => htmlPage(ctx, 404, "This operator link no longer works", `<p>Operator pages now open with a sign-in link that works once. <a href="/operator">Sign in with your email address</a>.</p>`));
}

const NOTICES: Record<string, string> = {
  "signed-out": "You are signed out.",
  "note-saved": "Your note is saved: it appears in that morning's edition, under the greeting.",
  "note-deleted": "The note is deleted.",
  "feed-added": "The feed is added: the next edition lists what it carries.",
  "feed-removed": "The feed is removed. A source from the town directory stays removed until you restore it.",
  "directory-restored": "Restored: the source was checked again and, if it still works, is back in your town's feeds.",
  "directory-checked": "The town directory's sources were checked: those that work are listed below.",
  approved: "Approved: the listing is published (or, for a paid tier, its buyer has the payment link).",
  rejected: "Rejected: the buyer is emailed your reason.",
  cancelled: "Your lease is cancelled. The town stays yours until the end of the paid period.",
  "payouts-on": "Your payout account is connected: your share of each listing is transferred to it.",
  "payouts-pending": "Stripe has not finished checking your payout account yet. Your shares accrue until it has.",
};

function noticeOf(key: string | null): string | undefined {
  return key ? NOTICES[key] : undefined;
}
