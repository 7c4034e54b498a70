import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { townDesk, type TownDesk } from "../../../src/services/commerce/operator-desk.ts";
import type { DeskForm } from "../../../src/site/pages/operator.ts";
import { viewPage } from "../../http/html-page.ts";

/**
 * The signed-in operator's pages (src/pages/on-request/operator/): their towns, and a town's desk with
 * its forms as posted. `csrf` is the token of their session, which every form carries.
 */

export interface DeskAnswer extends DeskForm {
  /** The line a form's redirect asked for (`?done=`), above the desk. */
  notice?: string;
  /** The desk already read by the route's service call (a preview); read here otherwise. */
  town?: TownDesk;
}

/** A town that is not the operator's (or no town at all): 404 and the way to theirs. */
export function notYourTown(ctx: AppContext, text?: string): Promise<Response> {
  return viewPage(ctx, 404, "operator/message", { title: "Not one of your towns", lines: [{ text, link: { href: "/operator", text: "Your towns" } }] });
}

/** A town's desk, or 404 when the operator does not run it. */
export async function deskPage(ctx: AppContext, csrf: string, email: string, slug: string, status = 200, answer: DeskAnswer = {}): Promise<Response> {
  const { notice, town, ...form } = answer;
  let desk: TownDesk;
  try {
    desk = town ?? townDesk(ctx, email, slug);
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") return notYourTown(ctx, "You do not run this town. ");
    throw err;
  }
  return viewPage(ctx, status, "operator/desk", { email, csrf, notice, town: desk, form });
}

