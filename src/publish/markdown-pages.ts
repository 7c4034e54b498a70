import type { Operation } from "../contract/operation.ts";
import { PROBLEMS } from "../contract/problems.ts";
import { slugify } from "../core/slug.ts";
import type { EditionBodyItem, EditionItem, PublishedCity } from "../store/site-index.ts";
import { demoteHeadings, formatDate, formatInt, frontMatter, md, mdLink, mdTable, startsWithH1 } from "./markdown-text.ts";
import { censusFigures } from "../core/census-figures.ts";
import { developerSections } from "./developer-sections.ts";

// Pure renderers of the markdown twins: data in, markdown out. `base` is the public origin
// (config.baseUrl); every link is absolute so a twin read on its own still leads somewhere.

export const SITE_NAME = "citydaily";

/** `/{slug}/{date}.md`: the stored edition markdown under a metadata header. */
export function editionMarkdown(base: string, e: EditionBodyItem): string {
  const body = e.markdown.replace(/\r\n?/g, "\n").trim();
  return [
    frontMatter({
      title: e.subject,
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
  ].join("\n");
}


export const NOT_AVAILABLE = "not available yet";

function censusSection(p: PublishedCity): string[] {
  const lines = censusFigures(p);
  const missing = lines.filter((l) => l.value === null).length;
  const vintage = p.acs_detail_year ?? p.acs_year;
  const source = vintage && /^\d{4}$/.test(vintage)
    ? `U.S. Census Bureau, American Community Survey 5-year estimates ${Number(vintage) - 4}-${vintage}; land area from the Census Gazetteer.`
    : "U.S. Census Bureau, American Community Survey 5-year estimates; land area from the Census Gazetteer.";
  return [
    "## Census figures",
    "",
    mdTable(["Figure", "Value"], lines.map((l) => [l.label, l.value ?? `*${NOT_AVAILABLE}*`])),
    "",
    `Source: ${source}` + (missing ? ` Figures marked *${NOT_AVAILABLE}* have not been imported for this place; none is estimated.` : ""),
    "",
  ];
}

export interface CityPageInput {
  city: PublishedCity;
  /** Markdown of the latest edition. */
  latestMarkdown: string | undefined;
  /** Newest first. */
  archive: Array<{ date: string; subject: string }>;
  /** True when `archive` stops short of the first edition. */
  archiveTruncated: boolean;
}

/** `/{slug}.md`: the city page (latest edition, archive index, census table). */
export function cityMarkdown(base: string, { city, latestMarkdown, archive, archiveTruncated }: CityPageInput): string {
  const page = `${base}/${city.slug}`;
  const where = [city.name, city.county_name, city.state_name].filter(Boolean).map((s) => md(s!)).join(", ");
  const out = [
    frontMatter({ title: `${city.name}, ${city.state_name}`, url: page, latest_edition: city.latest_date, feed: `${page}/feed.xml` }),
    `# ${md(city.name)}, ${md(city.state_name)}`,
    "",
    `${md(city.name)} Daily is a free morning newsletter for ${where}: the forecast, the town's calendar and directory, ` +
      `census facts, sunrise and sunset, published each morning in ${md(city.timezone)}. ` +
      `Subscribe on the ${mdLink("city page", page)} or with \`POST ${base}/api/subscribe\`.`,
    "",
    "## Latest edition",
    "",
    `${mdLink(city.latest_subject, `${page}/${city.latest_date}.md`)} (${formatDate(city.latest_date)})`,
    "",
  ];
  if (latestMarkdown) out.push(demoteHeadings(latestMarkdown.replace(/\r\n?/g, "\n").trim(), 2), "");
  out.push("## Archive", "");
  for (const a of archive) out.push(`- ${mdLink(a.date, `${page}/${a.date}.md`)}: ${md(a.subject)}`);
  if (archiveTruncated) {
    out.push("", `Older editions: every date is listed by ${mdLink("the city API", `${base}/api/city/${city.slug}`)} and the ${mdLink("sitemap", `${base}/sitemap.xml`)}.`);
  }
  out.push("", ...censusSection(city));
  out.push(
    "## More",
    "",
    `- ${mdLink(`RSS feed of ${city.name} editions`, `${page}/feed.xml`)}`,
    `- ${mdLink(`Cities in ${city.state_name}`, `${base}/states/${slugify(city.state_name)}.md`)}`,
    `- ${mdLink("City data as JSON", `${base}/api/city/${city.slug}`)}, ${mdLink("schema.org census dataset", `${base}/api/facts/${city.slug}`)}, ${mdLink("today's weather", `${base}/api/weather/${city.slug}`)}`,
    "",
  );
  return out.join("\n");
}

/** Cities grouped by state, in the order given (state, then name). */
export function groupByState<T extends { state_name: string }>(cities: readonly T[]): Array<{ state: string; slug: string; cities: T[] }> {
  const groups: Array<{ state: string; slug: string; cities: T[] }> = [];
  for (const c of cities) {
    let g = groups.at(-1);
    if (g?.state !== c.state_name) groups.push((g = { state: c.state_name, slug: slugify(c.state_name), cities: [] }));
    g.cities.push(c);
  }
  return groups;
}

/** `/cities.md`: the directory of cities with a newsletter, by state. */
export function citiesMarkdown(base: string, cities: readonly PublishedCity[]): string {
  const groups = groupByState(cities);
  const out = [
    frontMatter({ title: "Cities", url: `${base}/cities` }),
    "# Cities",
    "",
    `${formatInt(cities.length)} ${cities.length === 1 ? "city has" : "cities have"} a published newsletter, in ${groups.length} ${groups.length === 1 ? "state" : "states"}. ` +
      `Any other U.S. place starts one when someone subscribes (\`POST ${base}/api/subscribe\`).`,
    "",
  ];
  for (const g of groups) {
    out.push(`## ${mdLink(g.state, `${base}/states/${g.slug}.md`)}`, "");
    for (const c of g.cities) out.push(`- ${mdLink(c.name, `${base}/${c.slug}.md`)}: latest edition ${c.latest_date}`);
    out.push("");
  }
  return out.join("\n");
}

/** `/states/{state}.md`: the state's cities with a newsletter, largest first. */
export function stateMarkdown(base: string, state: string, cities: readonly PublishedCity[]): string {
  const sorted = [...cities].sort((a, b) => (b.population ?? -1) - (a.population ?? -1) || a.name.localeCompare(b.name));
  const slug = slugify(state);
  return [
    frontMatter({ title: `Cities in ${state}`, url: `${base}/states/${slug}` }),
    `# Cities in ${md(state)}`,
    "",
    `${formatInt(sorted.length)} ${sorted.length === 1 ? "city" : "cities"} in ${md(state)} ${sorted.length === 1 ? "has" : "have"} a published newsletter, largest first. ` +
      `Every city in the state: ${mdLink(`/api/cities-census?state=${state}`, `${base}/api/cities-census?state=${encodeURIComponent(state)}`)}.`,
    "",
    mdTable(
      ["#", "City", "County", "Population", "Latest edition"],
      sorted.map((c, i) => [
        String(i + 1),
        mdLink(c.name, `${base}/${c.slug}.md`),
        c.county_name ? md(c.county_name) : "",
        c.population === null ? `*${NOT_AVAILABLE}*` : formatInt(c.population),
        mdLink(c.latest_date, `${base}/${c.slug}/${c.latest_date}.md`),
      ]),
    ),
    "",
    `Back to ${mdLink("all cities", `${base}/cities.md`)}.`,
    "",
  ].join("\n");
}

/** `/feed.md`: the most recent editions across all cities. */
export function feedMarkdown(base: string, recent: readonly EditionItem[]): string {
  return [
    frontMatter({ title: "Recent editions", url: `${base}/feed.md`, rss: `${base}/feed.xml` }),
    "# Recent editions",
    "",
    `The ${recent.length} most recently published editions across all cities, newest first. RSS: ${mdLink("feed.xml", `${base}/feed.xml`)}.`,
    "",
    ...recent.map((e) => `- ${e.date} · ${mdLink(`${e.name}, ${e.state_name}`, `${base}/${e.slug}.md`)}: ${mdLink(e.subject, `${base}/${e.slug}/${e.date}.md`)}`),
    "",
  ].join("\n");
}

/** `/developers.md`: the API in brief, generated from the contract (operations and problem codes). */
export function developersMarkdown(base: string, operations: readonly Operation[]): string {
  const codes = Object.entries(PROBLEMS) as Array<[string, { status: number; title: string; resolution: string }]>;
  return [
    frontMatter({ title: "Developers", url: `${base}/developers` }),
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
    ...developerSections(base, operations),
    "## Errors",
    "",
    `Every failure is \`application/problem+json\` (RFC 9457) with a stable \`code\`; branch on it. \`type\` is \`${base}/developers#error-{code}\`, ` +
      "`status` equals the HTTP status, `error` repeats `detail`, and `issues[]` (per-field `path` and `message`) appears on validation failures only.",
    "",
    mdTable(["Code", "HTTP", "Title", "What to do"], codes.map(([code, p]) => [`\`${code}\``, String(p.status), md(p.title), md(p.resolution)])),
    "",
    "## Feeds and files",
    "",
    `- ${mdLink("RSS feed of recent editions", `${base}/feed.xml`)}; one per city at \`${base}/{slug}/feed.xml\``,
    `- ${mdLink("Sitemap index", `${base}/sitemap.xml`)}`,
    `- ${mdLink("llms.txt", `${base}/llms.txt`)} and ${mdLink("llms-full.txt", `${base}/llms-full.txt`)}`,
    "- Markdown twin of any page: append `.md` to its path, or send `Accept: text/markdown`.",
    "",
  ].join("\n");
}
