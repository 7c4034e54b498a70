import type { H3, H3Event } from "h3";
import { operationsById } from "../../../src/contract/operations/index.ts";
import type { PlacesResponse } from "../../../src/contract/places.ts";
import { toFieldIssues } from "../../../src/core/errors.ts";
import type { AppContext } from "../../../src/services/platform/context.ts";
import { runOperation, type Caller } from "../../../src/services/operations/bindings.ts";
import { clientAddress } from "../../http/client-address.ts";
import { htmlPage } from "../../http/html-page.ts";
import { escapeHtml as e } from "../../../src/lib/html.ts";

/**
 * GET /places?q=: "Find your town" without JavaScript. The site's place finder is a GET form to
 * here; this page runs the find_place operation (the same index and ranking as the browser's box)
 * and lists the matches: a town with a newsletter links to its page, a town without one gets a
 * subscribe form (POST /subscribe, the no-JS subscribe route). A search too short to run is shown
 * next to the field, with what was typed kept.
 */
const op = operationsById.findPlace;
const number = new Intl.NumberFormat("en-US");

function searchForm(typed: string, error?: string): string {
  const invalid = error ? ` aria-invalid="true" aria-describedby="q-error"` : "";
  return `<form method="get" action="/places" role="search">
<label for="q">Find your town</label>
<div class="actions"><input id="q" name="q" type="text" value="${e(typed)}" required minlength="2" maxlength="100" autocomplete="off"${invalid}>
<button type="submit">Find</button></div>
${error ? `<p class="field-error" id="q-error">${e(error)}</p>` : ""}
</form>`;
}

function resultItem(place: PlacesResponse["results"][number], n: number, landing: string): string {
  const where = `${place.name}${place.county ? ` (${place.county})` : ""}, ${place.state}`;
  const people = place.population > 0 ? `${number.format(place.population)} people` : "population not known";
  const path = `/${encodeURIComponent(place.slug)}`;
  if (place.hasNewsletter) {
    return `<li class="card"><h2><a href="${e(path)}">${e(where)}</a></h2><p class="status">${e(people)} · has a daily newsletter: <a href="${e(path)}">read today's edition</a></p></li>`;
  }
  return `<li class="card"><h2><a href="${e(path)}">${e(where)}</a></h2><p class="status">${e(people)} · no newsletter yet: the first subscriber starts it.</p>
<form method="post" action="/subscribe">
<label for="email-${n}">Your email, for the ${e(place.name)} daily</label>
<div class="actions"><input id="email-${n}" type="email" name="email" autocomplete="email" required>
<button type="submit">Subscribe</button></div>
<input type="hidden" name="slug" value="${e(place.slug)}"><input type="hidden" name="landing_path" value="${e(landing)}">
<div class="trap" aria-hidden="true"><label>Leave this empty <input type="text" name="honeypot" tabindex="-1" autocomplete="off"></label></div>
</form></li>`;
}

export function placesPageRoutes(app: H3, ctx: AppContext): void {
  app.get("/places", async (event: H3Event) => {
    const typed = (event.url.searchParams.get("q") ?? "").slice(0, 200);
    const parsed = op.query.safeParse({ q: typed, limit: 10 });
    if (!parsed.success) {
      const issue = toFieldIssues(parsed.error.issues).find((i) => i.path === "q");
      const message = typed.trim().length < 2 ? "Type at least two letters of a town's name, e.g. Marfa or Ely, Nevada." : `The search ${issue?.message ?? "cannot be run"}.`;
      return htmlPage(ctx, 400, "Find your town", `${searchForm(typed, message)}\n<p><a href="/cities">Browse the cities with a newsletter</a></p>`);
    }
    const caller: Caller = { transport: "http", address: clientAddress(event, ctx.config.mail.trustProxyHops), admin: false };
    const { results } = (await runOperation(ctx, op, parsed.data, caller)).data as PlacesResponse;
    const landing = `/places?q=${encodeURIComponent(parsed.data.q)}`;
    const list = results.length
      ? `<p role="status">${results.length} ${results.length === 1 ? "town matches" : "towns match"} “${e(parsed.data.q)}”, best first.</p>
<ul class="places cards">${results.map((p, n) => resultItem(p, n, landing)).join("\n")}</ul>`
      : `<p role="status">No U.S. town matches “${e(parsed.data.q)}”. Check the spelling, or add the state: “Springfield, Illinois”.</p>`;
    return htmlPage(ctx, 200, "Find your town", `${searchForm(typed)}\n${list}\n<p><a href="/cities">Browse the cities with a newsletter</a></p>`);
  });
}
