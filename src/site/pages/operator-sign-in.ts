/**
 * The operators' sign-in pages (api/routes/operator/sign-in.ts, src/pages/on-request/operator/): the
 * desk's door, in each of its states. What a signed-in operator sees is the desk's (./operator.ts).
 */
export type SignInView =
  /** GET /operator without a session: the address to email a link to (an error beside it, a notice above it). */
  | { state: "form"; csrf: string; email: string; error?: string; notice?: string }
  /** The answer to the form: the same for every address. */
  | { state: "sent"; email: string; minutes: number }
  /** The link opened: a Sign in button (mail scanners that open links do not use it up). */
  | { state: "confirm"; token: string; csrf: string }
  /** The link was used already or has expired. */
  | { state: "used"; minutes: number }
  /** A form of the operator's pages whose CSRF token no longer matches (403). */
  | { state: "form-expired" };

declare module "./on-request.ts" {
  interface OnRequestViews {
    "operator/sign-in": SignInView;
  }
}
