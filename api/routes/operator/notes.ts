import type { H3 } from "h3";
import { AppError } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { previewNote, removeNote, saveNote } from "../../../src/services/commerce/operator-desk.ts";
import type { FieldErrors } from "../../../src/site/pages/operator.ts";
import { see } from "../../http/operator-session.ts";
import { SLUG, type OperatorDesk } from "./requests.ts";

/** The operator's note for a morning's edition: preview, save, delete. */
export function operatorNoteRoutes(app: H3, ctx: AppContext, { signedInPost, desk }: OperatorDesk): void {
  app.post("/operator/towns/:slug/note", (event) => signedInPost(event, (email, body) => {
    const slug = event.context.params!.slug;
    if (!SLUG.test(slug)) return desk(event, email, "-");
    const values = { markdown: body.get("markdown") ?? "", authorName: body.get("authorName") ?? "", date: body.get("date") ?? "" };
    if (body.get("action") === "preview") {
      const { desk: town, preview } = previewNote(ctx, email, slug, values.markdown, values.authorName);
      const errors: FieldErrors = {};
      if (!preview) errors.markdown = "Nothing a reader would see yet: write a sentence or two.";
      return desk(event, email, slug, 200, { town, note: { values, preview, errors } });
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
}
