import { parseCookies, type H3Event } from "h3";
import type { z } from "zod";
import { isNonce, newNonce, preSessionBinding } from "../../src/services/operators/csrf.ts";
import { sessionOperator } from "../../src/services/operators/sessions.ts";
import { INTERACTION_PREFIX } from "../../src/services/oauth/provider.ts";
import type { AppContext } from "../../src/services/platform/context.ts";
import { readBodyText } from "./body.ts";

/**
 * An operator's browser, as the desk (api/routes/operator/) and an AI client's sign-in and consent
 * (api/routes/oauth/) both read it: the session and pre-session cookies, the consent page to come
 * back to after signing in, the posted form and the 303 answers. The sessions, sign-in links and
 * CSRF tokens themselves are src/services/operators/.
 */
export const SESSION_COOKIE = "cd_operator";
/** A random nonce for the forms shown before sign-in, which their CSRF token is bound to. */
export const PRE_COOKIE = "cd_operator_pre";
/** Where the sign-in link's Sign in button leads once it has signed the person in (an AI client's consent page). */
export const RETURN_COOKIE = "cd_operator_return";

/** A cookie of the operator's pages (sent to /operator only; Secure on an https site). */
export function cookie(ctx: AppContext, name: string, value: string, maxAgeSeconds: number): string {
  const secure = ctx.config.baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=/operator; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** The consent page the browser should come back to after signing in, if the sign-in started from one. */
export function returnAfterSignIn(event: H3Event): string | undefined {
  const to = parseCookies(event)[RETURN_COOKIE];
  return to && new RegExp(`^${INTERACTION_PREFIX}/[\\w-]{10,64}$`).test(to) ? to : undefined;
}

/** The operator's session bound to the app: who is signed in, and the pre-session nonce of the forms before. */
export function operatorSession(ctx: AppContext) {
  const session = (event: H3Event): string | undefined => parseCookies(event)[SESSION_COOKIE];
  const operatorOf = (event: H3Event): string | undefined => sessionOperator(ctx, session(event));
  /** What this browser's pre-session forms are bound to (`undefined`: it has no nonce). */
  const preBinding = (event: H3Event): string | undefined => preSessionBinding(parseCookies(event)[PRE_COOKIE]);

  /** The pre-session nonce (set it when the page shows a form and the browser has none yet). */
  function preNonce(event: H3Event): { nonce: string; set: string[] } {
    const have = parseCookies(event)[PRE_COOKIE];
    if (isNonce(have)) return { nonce: have, set: [] };
    const nonce = newNonce();
    return { nonce, set: [cookie(ctx, PRE_COOKIE, nonce, 3600)] };
  }

  return { session, operatorOf, preBinding, preNonce };
}

export type OperatorSession = ReturnType<typeof operatorSession>;

export async function form(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(await readBodyText(event).catch(() => ""));
}

/** 303 See Other (a form's answer), never kept, with the cookies it sets. */
export const see = (to: string, cookies: string[] = []): Response => {
  const headers = new Headers({ Location: to, "Cache-Control": "no-store" });
  for (const c of cookies) headers.append("Set-Cookie", c);
  return new Response(null, { status: 303, headers });
};

export async function withCookies(page: Promise<Response>, cookies: string[]): Promise<Response> {
  const res = await page;
  for (const c of cookies) res.headers.append("Set-Cookie", c);
  return res;
}

/** A form's errors by field (the first of each), from zod's issues. */
export function issues(result: z.ZodSafeParseError<unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of result.error.issues) out[String(i.path[0] ?? "form")] ??= i.message;
  return out;
}
