import type { Operation } from "../contract/operation.ts";
import { PROBLEM_CASES, PROBLEMS } from "../contract/problems.ts";
import { isState, statesPhrase } from "../contract/states.ts";
import { webMarkdown } from "../core/edition/web-edition.ts";
import { eventWhenWords } from "../core/calendar/event-time.ts";
import { timeZoneName } from "../core/places/zone-names.ts";
import type { PlaceResponse } from "../contract/places.ts";
import type { ArchiveEntry } from "../store/morning/editions.ts";
import type { CitiesView, CityCard, CityView, PlacedEdition, StateView } from "../site/views.ts";
import { outletGives, outletsOf } from "../core/edition/source-outlets.ts";
import { demoteHeadings, formatDate, formatInt, frontMatter, md, mdLink, mdTable, startsWithH1 } from "./markdown-text.ts";
import { developerSections, type ExampleEdition } from "./developer-sections.ts";

// Pure renderers of the markdown twins: a view of src/site/views.ts in (the same view its Astro page
// renders), markdown out. `base` is the public origin (config.baseUrl); every link is absolute so a
// twin read on its own still leads somewhere.

export const SITE_NAME = "citydaily";

/** `/{slug}/{date}.md`: the stored edition markdown under a metadata header. */
export function editionMarkdown(base: string, e: PlacedEdition, nav: { previous?: ArchiveEntry; next?: ArchiveEntry } = {}): string {
  // The email footer links to the edition's own page; the twin leaves it out, like the page.
  const body = webMarkdown(e.markdown.replace(/\r\n?/g, "\n")).trim();
  return [
    // `subject`, not `title`: a front-matter title and the body's h1 are two top-level headings to
    // markdown tools (markdownlint MD025), and the h1 already names the page.
    frontMatter({
      subject: e.subject,
      city: e.name,
      state: e.state_name,
      date: e.date,
      published: e.published_at,
      url: `${base}/${e.slug}/${e.date}`,
      city_page: `${base}/${e.slug}.md`,
    }),
    // The composer opens every edition with its own h1; anything else gets the subject as title.
    ...(startsWithH1(body) ? [] : [`# ${md(e.subject)}`, ""]),
    body,
    "",
    ...(nav.previous || nav.next ? [editionTwinNav(base, e.slug, nav), ""] : []),
  ].join("\n");
}

/**
 * The last line of an edition's twin: the editions before and after it (an edition with neither has
 * none). The morning's patch of the twin before a new edition (src/publish/next-links.ts) draws it
 * with the same function, so a patched twin is byte for byte what a full rebuild writes.
 */
export function editionTwinNav(base: string, slug: string, nav: { previous?: ArchiveEntry; next?: ArchiveEntry }): string {
  return [
    nav.previous ? `Previous: ${mdLink(nav.previous.subject, `${base}/${slug}/${nav.previous.date}.md`)}` : "",
    nav.next ? `Next: ${mdLink(nav.next.subject, `${base}/${slug}/${nav.next.date}.md`)}` : "",
  ].filter(Boolean).join(" · ");
}


function censusSection(view: CityView): string[] {
  const lines = view.census;
  const vintage = view.censusYear;
  const source = vintage && /^\d{4}$/.test(vintage)
    ? `U.S. Census Bureau, American Community Survey 5-year estimates ${Number(vintage) - 4}-${vintage}; land area from the Census Gazetteer.`
    : "U.S. Census Bureau, American Community Survey 5-year estimates; land area from the Census Gazetteer.";
  return [
    "## Census figures",
    "",
    // Only the figures there are: readers are never told what has not been imported.
    mdTable(["Figure", "Value"], lines.filter((l) => l.value !== null).map((l) => [l.label, l.value!])),
    "",
    `Source: ${source}`,
    "",
  ];
}

/** The town's calendar and directory; nothing at all when both are empty. Paid placements say "Sponsored". */
function listingsSections(view: CityView): string[] {
  const out: string[] = [];
  const label = (sponsored: boolean) => (sponsored ? "Sponsored: " : "");
  if (view.events.length) {
    out.push("## Calendar", "", ...view.events.map((e) => {
      const when = eventWhenWords({ startsAt: e.startsAt, endsAt: e.endsAt, allDay: e.allDay, venue: e.venue }, { withDay: true });
      return `- ${label(e.sponsored)}${e.url ? mdLink(e.title, e.url) : md(e.title)}, ${md(when)}${e.description ? `: ${md(e.description)}` : ""}${e.agendaUrl ? ` ${mdLink("Agenda", e.agendaUrl)}` : ""}${e.source ? ` (from ${md(e.source)})` : ""}`;
    }), "");
  }
  if (view.directory.length) {
    out.push("## Directory", "", ...view.directory.map((d) => {
      const about = [d.category, d.address].filter((x): x is string => Boolean(x)).map(md).join(", ");
      return `- ${label(d.sponsored)}${d.url ? mdLink(d.title, d.url) : md(d.title)}${about ? ` (${about})` : ""}${d.description ? `: ${md(d.description)}` : ""}`;
    }), "");
  }
  return out;
}

/** `/{slug}.md`: the city page (latest edition, calendar, directory, archive index, census table). */
export function cityMarkdown(base: string, view: CityView): string {
  const { place, latest, archive } = view;
  const page = `${base}/${place.slug}`;
  // Only a place's principal county is known (some cities span several), so it is named as such.
  const where = `${md(place.name)}, ${md(place.state)}`;
  const county = place.county ? ` Its principal county is ${md(place.county)}.` : "";
  const out = [
    frontMatter({ url: page, latest_edition: latest?.date, feed: `${page}/feed.xml` }),
    `# ${md(place.name)}, ${md(place.state)}`,
    "",
    `${md(place.name)} Daily is a free morning newsletter for ${where}: the forecast, the town's calendar and directory, ` +
      `census facts, sunrise and sunset, published each morning on ${md(timeZoneName(place.timezone))}.${county} ` +
      `Subscribe on the ${mdLink("city page", page)} or with \`POST ${base}/api/subscribe\`.`,
    "",
  ];
  if (latest) {
    out.push("## Latest edition", "", `${mdLink(latest.subject, `${page}/${latest.date}.md`)} (${formatDate(latest.date)})`, "");
    const body = latest.markdown.replace(/\r\n?/g, "\n").trim();
    if (body) out.push(demoteHeadings(body, 2), "");
  }
  out.push(...listingsSections(view));
  // Where the edition's headlines and events come from (the page's "Where this comes from").
  if (view.sources?.length) {
    out.push("## Where this comes from", "", ...outletsOf(view.sources).map((s) => `- ${mdLink(s.name, s.url)}: ${outletGives(s)}${s.countyWide ? `, county-wide (only its items that name ${md(view.place.name)})` : ""}`), "");
  }
  out.push("## Archive", "");
  for (const a of archive) out.push(`- ${mdLink(a.date, `${page}/${a.date}.md`)}: ${md(a.subject)}`);
  if (view.archiveTotal > archive.length) {
    out.push("", `Older editions: every date is listed by ${mdLink("the city API", `${base}/api/city/${place.slug}`)} and the ${mdLink("sitemap", `${base}/sitemap.xml`)}.`);
  }
  out.push("", ...censusSection(view));
  out.push(
    "## More",
    "",
    `- ${mdLink(`RSS feed of ${place.name} editions`, `${page}/feed.xml`)}`,
    `- ${mdLink(`Cities in ${place.state}`, `${base}/states/${place.stateSlug}.md`)}`,
    `- ${mdLink("City data as JSON", `${base}/api/city/${place.slug}`)}, ${mdLink("schema.org census dataset", `${base}/api/facts/${place.slug}`)}, ${mdLink("today's weather", `${base}/api/weather/${place.slug}`)}`,
    "",
  );
  return out.join("\n");
}

/**
 * `/{slug}.md` of a place without a newsletter yet (the server renders it on request, like its page):
 * what is known without fetching anything (the place, its clock today, sun, holidays, census
 * figures) and how its newsletter starts. `facts` is the get_place answer of this instant.
 */
export function placeMarkdown(base: string, view: CityView, facts: PlaceResponse): string {
  const { place } = view;
  const page = `${base}/${place.slug}`;
  const where = `${md(place.name)}, ${md(place.state)}`;
  const county = place.county ? ` in ${md(place.county)}` : "";
  const kind = place.placeType ? `a ${md(place.placeType)}` : "a place";
  const holidays = [...facts.holidays.today.map((h) => `today: ${md(h.name)} (${h.kind})`), ...facts.holidays.upcoming.map((h) => `${formatDate(h.date)}: ${md(h.name)} (${h.kind})`)];
  const daylight = facts.sun.daylightMinutes === null ? "" : ` (${Math.floor(facts.sun.daylightMinutes / 60)} h ${facts.sun.daylightMinutes % 60} min of daylight)`;
  return [
    frontMatter({ url: page, has_newsletter: "no", sells_listings: facts.sellsListings ? "yes" : "no", local_date: facts.localDate, timezone: facts.timezone }),
    `# ${where}`,
    "",
    (facts.hasNewsletter
      ? `${where} is ${kind}${county}. Its citydaily newsletter has started: the first edition comes out the next morning (subscribe on the ${mdLink("town's page", page)}).`
      : `${where} is ${kind}${county}. It has no citydaily newsletter yet, so there are no editions, archive or stored weather for it. ` +
        `Its first subscriber starts one: subscribe on the ${mdLink("town's page", page)} (the first edition comes out the next morning).`) +
      (facts.sellsListings ? "" : " It takes event and business listings once it has a newsletter or an operator."),
    "",
    `## Today in ${md(place.name)}`,
    "",
    `- Local date and time: ${formatDate(facts.localDate)}, ${facts.localTime} ${md(facts.timezoneName)} (${facts.timezone})`,
    `- Sunrise ${facts.sun.sunrise ?? "none today"}, sunset ${facts.sun.sunset ?? "none today"}${daylight}`,
    `- Holidays: ${holidays.length ? holidays.join("; ") : "none today or in the next 7 days"}`,
    `- Coordinates: ${facts.latitude}, ${facts.longitude}`,
    "",
    ...censusSection(view),
    "## More",
    "",
    `- ${mdLink("Place data as JSON", `${base}/api/place/${place.slug}`)} (any U.S. place; the MCP tool \`get_place\`)`,
    `- ${mdLink(`Cities in ${place.state}`, `${base}/states/${place.stateSlug}.md`)}`,
    "",
  ].join("\n");
}

/** One city card as a list item: name, latest edition's lead (linked) and date, its excerpt. */
function cardItem(base: string, c: CityCard, bullet: string, extra = ""): string {
  const lead = `${mdLink(c.latestSubject, `${base}/${c.slug}/${c.latestDate}.md`)} (${formatDate(c.latestDate)})`;
  return `${bullet} ${mdLink(c.name, `${base}/${c.slug}.md`)}${extra}: ${lead}${c.excerpt ? `. ${md(c.excerpt)}` : ""}`;
}

/** `/cities.md`: the directory of cities with a newsletter, by state. */
export function citiesMarkdown(base: string, view: CitiesView): string {
  const groups = view.states;
  const out = [
    frontMatter({ url: `${base}/cities` }),
    "# Cities",
    "",
    `${formatInt(view.cityCount)} ${view.cityCount === 1 ? "city has" : "cities have"} a published newsletter, in ${statesPhrase(groups.map((g) => g.name))}. ` +
      `Any other U.S. place starts one when someone subscribes (\`POST ${base}/api/subscribe\`).`,
    "",
  ];
  for (const g of groups) {
    // As on the page: the largest cities with their latest edition's lead and excerpt, then the others.
    out.push(`## ${mdLink(g.name, `${base}/states/${g.slug}.md`)}`, "");
    const carded = new Set(g.cards.map((c) => c.slug));
    for (const c of g.cards) out.push(cardItem(base, c, "-"));
    for (const c of g.cities) if (!carded.has(c.slug)) out.push(`- ${mdLink(c.name, `${base}/${c.slug}.md`)}: latest edition ${c.latestDate}`);
    out.push("");
  }
  return out.join("\n");
}

/** `/states.md`: the states and territories with a newsletter (D.C. and Puerto Rico apart). */
export function statesMarkdown(base: string, view: CitiesView): string {
  const row = (g: CitiesView["states"][number]) => `- ${mdLink(g.name, `${base}/states/${g.slug}.md`)}: ${formatInt(g.cityCount)} ${g.cityCount === 1 ? "city" : "cities"}`;
  const states = view.states.filter((g) => isState(g.name));
  const others = view.states.filter((g) => !isState(g.name));
  return [
    frontMatter({ url: `${base}/states` }),
    "# States and territories",
    "",
    `${formatInt(view.cityCount)} ${view.cityCount === 1 ? "city" : "cities"} in ${statesPhrase(view.states.map((g) => g.name))} ${view.cityCount === 1 ? "has" : "have"} a published newsletter.`,
    "",
    ...(states.length ? ["## States", "", ...states.map(row), ""] : []),
    ...(others.length ? ["## District and territories", "", ...others.map(row), ""] : []),
    `Back to ${mdLink("all cities", `${base}/cities.md`)}.`,
    "",
  ].join("\n");
}

/** `/states/{state}.md`: the state's cities with a newsletter, largest first, each with its latest edition. */
export function stateMarkdown(base: string, view: StateView): string {
  const { name: state, slug, cities } = view;
  const facts = (c: CityCard) => [c.county ? md(c.county) : "", c.population === null ? "" : `population ${formatInt(c.population)}`].filter(Boolean).join(", ");
  return [
    frontMatter({ url: `${base}/states/${slug}` }),
    `# Cities in ${md(state)}`,
    "",
    `${formatInt(cities.length)} ${cities.length === 1 ? "city" : "cities"} in ${md(state)} ${cities.length === 1 ? "has" : "have"} a published newsletter, largest first, each with its latest edition. ` +
      `Every city in the state: ${mdLink(`/api/cities-census?state=${state}`, `${base}/api/cities-census?state=${encodeURIComponent(state)}`)}.`,
    "",
    ...cities.map((c, i) => cardItem(base, c, `${i + 1}.`, facts(c) ? ` (${facts(c)})` : "")),
    "",
    `Back to ${mdLink("all cities", `${base}/cities.md`)}.`,
    "",
  ].join("\n");
}

/** Newest edition date first; editions of one day by publication, latest first. */
const newestFirst = (a: PlacedEdition, b: PlacedEdition) => b.date.localeCompare(a.date) || b.published_at.localeCompare(a.published_at);

/** `/feed.md`: the most recent editions across all cities. */
export function feedMarkdown(base: string, recent: readonly PlacedEdition[]): string {
  return [
    frontMatter({ url: `${base}/feed.md`, rss: `${base}/feed.xml` }),
    "# Recent editions",
    "",
    `The ${recent.length} most recently published editions across all cities, newest first. RSS: ${mdLink("feed.xml", `${base}/feed.xml`)}.`,
    "",
    ...[...recent].sort(newestFirst).map((e) => `- ${e.date} · ${mdLink(`${e.name}, ${e.state_name}`, `${base}/${e.slug}.md`)}: ${mdLink(e.subject, `${base}/${e.slug}/${e.date}.md`)}`),
    "",
  ].join("\n");
}

/** `/developers.md`: the API in brief, generated from the contract (operations and problem codes). */
export function developersMarkdown(base: string, operations: readonly Operation[], example?: ExampleEdition): string {
  const codes = Object.entries(PROBLEMS) as Array<[string, { status: number; title: string; resolution: string }]>;
  return [
    frontMatter({ url: `${base}/developers` }),
    "# Developers",
    "",
    "citydaily publishes a free daily newsletter for U.S. cities. Everything here is open: no key, token, account or sign-up.",
    "",
    "## Base URL and description",
    "",
    `- Base URL: \`${base}\`; every \`/api/...\` path also answers at \`/api/v1/...\`.`,
    `- OpenAPI 3.1: ${mdLink(`${base}/openapi.json`, `${base}/openapi.json`)} (generated from the same schemas that validate requests).`,
    `- Reads are \`GET\`, anonymous, cross-origin open (\`Access-Control-Allow-Origin: *\`) and cacheable: \`Cache-Control\` plus a strong \`ETag\`; send it back in \`If-None-Match\` for a \`304\`.`,
    "",
    "## Endpoints",
    "",
    mdTable(["Method", "Path", "What it does"], operations.map((o) => [o.method, `\`${o.path}\``, md(o.summary)])),
    "",
    "## Slugs",
    "",
    "A city is addressed by `{city}-{state-name}`: ASCII-folded, lowercased, apostrophes and periods dropped, other punctuation and spaces become single hyphens, full state name " +
      "(`Cañon City, Colorado` is `canon-city-colorado`, `St. Louis, Missouri` is `st-louis-missouri`). " +
      "Places sharing a name within a state get their county inserted (`kailua-hawaii-county-hawaii`). Slugs never change. " +
      `The valid slugs of cities with a newsletter are listed by ${mdLink("/api/cities", `${base}/api/cities`)}.`,
    "",
    ...developerSections(base, operations, example),
    "## Errors",
    "",
    `Every failure is \`application/problem+json\` (RFC 9457) with a stable \`code\`; branch on it. \`type\` is \`${base}/developers#error-{code}\`, ` +
      "`status` equals the HTTP status, `error` repeats `detail`, and `issues[]` (per-field `path` and `message`) appears on validation failures only.",
    "",
    mdTable(["Code", "HTTP", "Title", "What to do"], codes.map(([code, p]) => [`\`${code}\``, String(p.status), md(p.title), md(p.resolution)])),
    "",
    ...Object.entries(PROBLEM_CASES).flatMap(([code, cases]) => [`\`${code}\`: ${cases}`, ""]),
    "## Feeds and files",
    "",
    `- ${mdLink("RSS feed of recent editions", `${base}/feed.xml`)}; one per city at \`${base}/{slug}/feed.xml\``,
    `- ${mdLink("Sitemap index", `${base}/sitemap.xml`)}`,
    `- ${mdLink("llms.txt", `${base}/llms.txt`)} and ${mdLink("llms-full.txt", `${base}/llms-full.txt`)}`,
    "- Markdown twin of any page: append `.md` to its path, or send `Accept: text/markdown`.",
    "",
  ].join("\n");
}
