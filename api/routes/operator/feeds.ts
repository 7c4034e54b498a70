import type { H3 } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { addDeskFeed, checkDeskDirectory, removeDeskFeed, restoreDeskDirectorySource } from "../../../src/services/commerce/operator-desk.ts";
import { see } from "../../http/operator-session.ts";
import { SLUG, type OperatorDesk } from "./requests.ts";

/** The town's feeds: add one, remove one, restore a source of the town directory, check the directory's sources again. */
export function operatorFeedRoutes(app: H3, ctx: AppContext, { signedInPost, desk }: OperatorDesk): void {
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
}
