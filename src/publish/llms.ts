import type { CityLink, PlacedEdition } from "../site/views.ts";
import { demoteHeadings, formatInt, md, mdLink } from "./markdown-text.ts";
import { SITE_NAME } from "./markdown-pages.ts";
import { statesPhrase } from "../contract/states.ts";

// llms.txt (https://llmstxt.org): an h1, a blockquote summary, a few lines of guidance, then h2
// sections of "- [name](url): notes" links to the markdown twins, the OpenAPI document and the feeds.
// llms-full.txt adds the developer guide, the largest cities and the recent editions inline; every
// list in it has a fixed cap, so it stays the same size however large the archive grows.

export interface LlmsInput {
  states: Array<{ name: string; slug: string; cities: number }>;
  cityCount: number;
  editionCount: number;
  latestDate: string | undefined;
}

export const LLMS_TOP_CITIES = 50;

function summary(base: string, i: LlmsInput): string[] {
  const coverage = i.cityCount
    ? ` ${formatInt(i.cityCount)} ${i.cityCount === 1 ? "city" : "cities"} in ${statesPhrase(i.states.map((s) => s.name))} ` +
      `have ${formatInt(i.editionCount)} published ${i.editionCount === 1 ? "edition" : "editions"}${i.latestDate ? `, the latest dated ${i.latestDate}` : ""}.`
    : "";
  return [
    `# ${SITE_NAME}`,
    "",
    "> A free daily newsletter for every U.S. city: each morning, in the city's own timezone, an edition with the forecast, " +
      `the town's calendar and directory, a census fact, sunrise and sunset, and holidays.${coverage}`,
    "",
    "Every page has a markdown twin: append `.md` to its path or send `Accept: text/markdown`. " +
      "A city page is `/{slug}` and an edition `/{slug}/{YYYY-MM-DD}`, where the slug is `{city}-{state-name}` (e.g. `st-louis-missouri`). " +
      `The JSON API needs no key; subscribing is \`POST ${base}/api/subscribe\`. ` +
      `Any of the 32,000 U.S. places, with a newsletter or not, has its facts (time zone and today's local date, sunrise and sunset, holidays, census figures) at \`${base}/api/place/{slug}\`; ` +
      "only places with a newsletter have editions and weather.",
    "",
  ];
}

function statesSection(base: string, i: LlmsInput): string[] {
  if (!i.states.length) return [];
  return ["## States and territories", "", ...i.states.map((s) => `- ${mdLink(s.name, `${base}/states/${s.slug}.md`)}: ${formatInt(s.cities)} ${s.cities === 1 ? "city" : "cities"}`), ""];
}

export function llmsTxt(base: string, i: LlmsInput): string {
  return [
    ...summary(base, i),
    "## Start here",
    "",
    `- ${mdLink("City directory", `${base}/cities.md`)}: every city with a newsletter, by state`,
    `- ${mdLink("Recent editions", `${base}/feed.md`)}: the 30 latest editions across all cities`,
    `- ${mdLink("Developer guide", `${base}/developers.md`)}: the JSON API in brief: endpoints, slugs, versioning, every error code`,
    `- ${mdLink("OpenAPI description", `${base}/openapi.json`)}: OpenAPI 3.1 of the JSON API`,
    `- ${mdLink("MCP server", `${base}/mcp`)}: Model Context Protocol endpoint (streamable HTTP, no key) with tools to find a town, read, search and subscribe; its ${mdLink("server card", `${base}/mcp/server-card`)} is listed by the ${mdLink("AI catalog", `${base}/.well-known/ai-catalog.json`)}`,
    `- ${mdLink("Agent skills", `${base}/.well-known/agent-skills/index.json`)}: SKILL.md documents for reading editions, subscribing, buying a listing and leasing a town`,
    "",
    "## Feeds",
    "",
    `- ${mdLink("RSS feed", `${base}/feed.xml`)}: recent editions of all cities with their full text; each city has its own at /{slug}/feed.xml`,
    `- ${mdLink("Sitemap index", `${base}/sitemap.xml`)}: every page, with its last modification`,
    "",
    ...statesSection(base, i),
    "## Optional",
    "",
    `- ${mdLink("llms-full.txt", `${base}/llms-full.txt`)}: this overview with the developer guide, the largest cities and the recent editions inline`,
    `- ${mdLink("API catalog", `${base}/.well-known/api-catalog`)}: RFC 9727 linkset of the API and its documents`,
    "",
  ].join("\n");
}

export interface LlmsFullInput extends LlmsInput {
  cities: readonly CityLink[];
  recent: readonly PlacedEdition[];
  /** developers.md without its front matter. */
  developers: string;
}

export function llmsFullTxt(base: string, i: LlmsFullInput): string {
  const largest = [...i.cities].sort((a, b) => (b.population ?? -1) - (a.population ?? -1)).slice(0, LLMS_TOP_CITIES);
  const developers = demoteHeadings(i.developers.replace(/^---\n[\s\S]*?\n---\n/, "").trim(), 1);
  return [
    ...summary(base, i),
    "## Where things are",
    "",
    `- ${mdLink("City directory", `${base}/cities.md`)}, one page per state at \`/states/{state}.md\``,
    "- City page `/{slug}.md`: the latest edition, the archive index and the census figures",
    "- Edition `/{slug}/{YYYY-MM-DD}.md`: one morning's newsletter (dates are the city's own calendar date)",
    `- ${mdLink("Recent editions", `${base}/feed.md`)}, ${mdLink("RSS", `${base}/feed.xml`)}, ${mdLink("sitemap index", `${base}/sitemap.xml`)}, ${mdLink("OpenAPI", `${base}/openapi.json`)}, ${mdLink("MCP server", `${base}/mcp`)}`,
    "",
    ...statesSection(base, i),
    ...(largest.length
      ? [
        `## Largest cities covered`,
        "",
        ...largest.map((c) => `- ${mdLink(`${c.name}, ${c.state}`, `${base}/${c.slug}.md`)}: ${c.population === null ? "population not available yet" : `population ${formatInt(c.population)}`}; latest edition ${c.latestDate}`),
        "",
      ]
      : []),
    ...(i.recent.length
      ? ["## Recent editions", "", ...i.recent.map((e) => `- ${e.date} · ${md(`${e.name}, ${e.state_name}`)}: ${mdLink(e.subject, `${base}/${e.slug}/${e.date}.md`)}`), ""]
      : []),
    developers,
    "",
  ].join("\n");
}
