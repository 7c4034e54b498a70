import { marked } from "marked";
import { SEARCH_SYNTAX } from "../contract/operations/search.ts";
import { EVENTS_MAX_DAYS } from "../contract/events.ts";
import { IDEMPOTENCY_TTL_HOURS, type Operation } from "../contract/operation.ts";
import { toolOperations } from "../core/mcp/catalog.ts";
import { mcpSetupMarkdown } from "../core/mcp/setup.ts";
import { mdLink } from "./markdown-text.ts";

/** The well-known discovery documents, listed by the developer guide, llms.txt and the API catalog. */
export function discoveryLinks(base: string): Array<{ name: string; url: string; what: string }> {
  return [
    { name: "OpenAPI description", url: `${base}/openapi.json`, what: "OpenAPI 3.1 of the JSON API, generated from the schemas that validate requests" },
    { name: "API catalog", url: `${base}/.well-known/api-catalog`, what: "RFC 9727 linkset: the API, its description, documentation and status" },
    { name: "Agent skills index", url: `${base}/.well-known/agent-skills/index.json`, what: "SKILL.md documents for agents (reading editions, subscribing, buying a listing, leasing a town), with sha256 digests" },
    { name: "MCP server", url: `${base}/mcp`, what: "Model Context Protocol endpoint (streamable HTTP, no key); open it in a browser for the set-up" },
    { name: "MCP server card", url: `${base}/mcp/server-card`, what: "the MCP server's card (name, endpoint, protocol revisions), also at /.well-known/mcp/server-card.json" },
    { name: "AI catalog", url: `${base}/.well-known/ai-catalog.json`, what: "lists the MCP server card, so an agent that knows only this site's address finds /mcp" },
    { name: "oEmbed", url: `${base}/api/oembed?url=${encodeURIComponent(`${base}/st-louis-missouri`)}`, what: "embed a city or edition page (`rich`, an iframe card)" },
  ];
}

/**
 * The open datasets of the town directory (content/data/sources, docs/sources.md): what each gave and
 * under which licence. UScityURL's CC BY 4.0 asks for this citation wherever its data is used. Their
 * addresses are text, not links: every link of the site's text outputs stays on the site.
 */
export const TOWN_DIRECTORY_CREDITS: ReadonlyArray<{ name: string; where: string; what: string; licence: string }> = [
  { name: "UScityURL", where: "github.com/caimeng2/UScityURL", licence: "CC BY 4.0",
    what: "official websites of U.S. municipalities (2022). Cai, Meng, Huang, Huiqing, & Decaminada, Travis (2023). Local data at a national scale: Introducing a dataset of official municipal websites in the United States for text-based analytics. *Environment and Planning B: Urban Analytics and City Science*, 50(7), 1988-1993. doi:10.1177/23998083231190961" },
  { name: ".gov data", where: "github.com/cisagov/dotgov-data", licence: "CC0 1.0", what: "registered .gov domains of cities and counties (CISA, August 2026)" },
  { name: "3DLNews", where: "github.com/wm-newslab/3DLNews", licence: "MIT, (c) 2024 William and Mary", what: "local newspapers, radio and TV stations by county, with their feeds (2016-2024)" },
  { name: "Local Memory Project", where: "github.com/harvard-lil/local-memory", licence: "MIT, (c) 2017 ODU Web Science / Digital Libraries Research Group", what: "local news outlets by city (2016)" },
  { name: "civic-scraper", where: "github.com/biglocalnews/civic-scraper", licence: "Apache-2.0, (c) 2020 Big Local News", what: "governments on CivicPlus (2020) and Legistar (2021)" },
];

/** An edition the site has, for the quick start's example. */
export interface ExampleEdition {
  slug: string;
  date: string;
}

/**
 * The quick start's edition: one the site has, so the example answers as shown; before the first
 * edition, the newest of the example town, whose date the command reads from /api/city itself.
 */
function exampleEditionLine(base: string, example: ExampleEdition | undefined): string {
  if (example) return `curl -s ${base}/api/archive/${example.slug}/${example.date}.md   # one edition as markdown`;
  return `curl -s ${base}/api/archive/st-louis-missouri/$(curl -s ${base}/api/city/st-louis-missouri | jq -r '.archives[0].date').md   # its newest edition as markdown`;
}

/** The sections of /developers.md beyond the endpoint list and the error table (quick start, MCP, discovery...). */
export function developerSections(base: string, operations: readonly Operation[], example?: ExampleEdition): string[] {
  const tools = toolOperations(operations).map((op) => ({ name: op.mcp.tool, title: op.mcp.title, readOnly: op.mcp.annotations.readOnlyHint }));
  const slug = example?.slug ?? "st-louis-missouri";
  return [
    "## Quick start",
    "",
    "```sh",
    `curl -s ${base}/api/cities                              # every city with a newsletter, by state`,
    `curl -s ${base}/api/city/${slug}              # one city: archive dates, census, events`,
    exampleEditionLine(base, example),
    `curl -s '${base}/api/events/${slug}?from=2026-11-28&to=2026-11-28'   # what's on that day`,
    `curl -s '${base}/api/search?q=%22farmers+market%22+-rain&limit=5'`,
    `curl -s -X POST ${base}/api/subscribe -H 'Content-Type: application/json' \\`,
    `  -d '{"email":"you@example.com","city":"St. Louis","state":"Missouri","slug":"st-louis-missouri"}'`,
    "```",
    "",
    "## Search syntax",
    "",
    SEARCH_SYNTAX,
    "",
    "## Buying a listing or leasing a town",
    "",
    "1. Price it with a `GET` that reserves nothing (`/api/listing-quote?slug=...`, `/api/pricing`, `/api/territories`).",
    "2. Create the checkout with a `POST` (`/api/listing-checkout`, `/api/business-checkout`, `/api/operator-actions`). The answer is 200 with exactly one of `checkoutUrl`, `rejected` (with a reason; no payment link), `held` or `queued`: branch on which field is present, not on the status.",
    "3. A person pays on the hosted payment page; there is no sandbox and no key.",
    "4. Follow a listing with `GET /api/listing-order?id=<order_id>` until `published` is true; a lease activates on the payment callback.",
    "",
    "## Retrying safely: Idempotency-Key",
    "",
    `Every \`POST\` that creates something (\`/api/subscribe\`, \`/api/listing-checkout\`, \`/api/business-checkout\`, \`/api/operator-actions\`) takes an \`Idempotency-Key\` header, as Stripe's API does; over MCP the write tools take the same value as the \`idempotencyKey\` argument. Make a new random key (a UUID) for each thing you mean to create, and send the same key when you retry it after a timeout or a dropped connection:`,
    "",
    `- the same key with the same body answers the first answer for ${IDEMPOTENCY_TTL_HOURS} hours (the same order, the same payment link), with the header \`Idempotent-Replayed: true\` (over MCP \`_meta["citydaily/idempotentReplayed"]\`); nothing new is created or charged;`,
    "- the same key with a different body is `422 idempotency_key_reused`: a key names one request;",
    "- two requests with one key at the same time make one order: the second waits for the first and answers its answer (after 10 seconds still running: `409 idempotency_in_progress` with `Retry-After`);",
    "- only successes are kept: a request that failed (a validation error, a `409 conflict`, a `502`) frees its key, and retrying it runs again;",
    "- a key is 1 to 255 visible ASCII characters (`400 validation_error` naming `header.Idempotency-Key` otherwise); keys are kept per operation, and a replay counts against the rate limit like any request.",
    "",
    "```sh",
    "KEY=$(uuidgen)   # once per listing; the same key on every retry of it",
    `curl -s -X POST ${base}/api/listing-checkout -H 'Content-Type: application/json' \\`,
    `  -H "Idempotency-Key: $KEY" -d @listing.json`,
    "```",
    "",
    "## A town's calendar",
    "",
    `Each town with a newsletter has a public calendar: its event listings (paid ones labelled Sponsored) and the events of its public iCalendar feeds, recurring ones one entry per occurrence.`,
    "",
    `- \`GET /api/events/{slug}?from=YYYY-MM-DD&to=YYYY-MM-DD\`: the events on those days (both included) in the town's local dates, with its \`timeZone\` and \`today\`; default today and the 7 days after, at most ${EVENTS_MAX_DAYS} days. "What's on next Saturday" is one call with \`from\` and \`to\` that date. Over MCP: \`get_events\`.`,
    `- \`/{slug}/calendar.ics\` (or \`webcal://\` on the same address): the calendar as iCalendar (RFC 5545) for calendar apps, from 30 days back to 90 days ahead, times in the town's zone (\`TZID\` with a \`VTIMEZONE\`), sponsored events with \`CATEGORIES:Sponsored\`. It follows new listings within seconds; revalidate with \`If-None-Match\`.`,
    "",
    "## Events: poll, no webhooks",
    "",
    "The service sends no outbound webhooks. Poll `GET /api/listing-order?id=...` for an order, and `/feed.xml` or `GET /api/city/{slug}` for a town's editions (its `archives` grow by one each morning). Reads are cacheable: send `If-None-Match` and get a cheap `304`.",
    "",
    "## MCP",
    "",
    mcpSetupMarkdown(`${base}/mcp`, tools),
    "",
    "## Discovery",
    "",
    ...discoveryLinks(base).map((l) => `- ${mdLink(l.name, l.url)}: ${l.what}`),
    "",
    "## Data sources",
    "",
    "Census figures: U.S. Census Bureau (ACS 5-year estimates, Gazetteer), public domain; this product uses the Census Bureau Data API but is not endorsed or certified by the Census Bureau. Weather and air quality: Open-Meteo.com (CC BY 4.0). Weather alerts: National Weather Service (public domain). Earthquakes: U.S. Geological Survey (public domain). Disaster declarations: FEMA's OpenFEMA API (public domain; not endorsed by FEMA). Tides: computed from NOAA harmonic constants (public domain) with Neaps (MIT); not for navigation.",
    "",
    "Where each town's own sites and local news may be found (the town directory, checked before any is used) comes from these open datasets, shipped with the project with their licences:",
    "",
    ...TOWN_DIRECTORY_CREDITS.map((c) => `- **${c.name}** (${c.where}; ${c.licence}): ${c.what}`),
    "",
    "## Versioning",
    "",
    "- The current version is v1, served at `/api/...` and `/api/v1/...` by the same handler; every response carries `API-Version: v1`.",
    "- Additive changes (new endpoints, optional fields, error codes) land in v1: ignore fields you do not know.",
    "- Breaking changes get a new prefix (`/api/v2/...`). A retirement is announced with a `Deprecation` header (RFC 9745) and a `Sunset` header (RFC 8594) at least 180 days apart, plus `Link: <replacement>; rel=\"deprecation\"`; nothing is deprecated today.",
    "- The unversioned `/api/` prefix is not deprecated and is not scheduled for removal.",
    "",
  ];
}

/** A break opportunity after each slash, `?`, `&` and `=` of inline code (a path or URL), and nowhere else. */
export function breakablePath(html: string): string {
  // The text is already escaped: `&amp;` is the ampersand, and no other entity may be split.
  const breakable = (text: string) => text.replace(/(&[a-z0-9#]+;)|([/?=])/gi, (m, entity: string | undefined) => (entity ? (entity === "&amp;" ? `${entity}<wbr>` : entity) : `${m}<wbr>`)).replace(/<wbr>$/, "");
  return html.replace(/<code>([^<]*)<\/code>/g, (_m, text: string) => `<code>${breakable(text)}</code>`);
}

/** Inline markdown (backticks, emphasis) as HTML, for one-line texts such as an operation's summary. */
export function inlineHtml(md: string): string {
  return breakablePath(marked.parseInline(md, { async: false }));
}

/** The same sections as HTML for /developers, each h2 with an id (`#quick-start`, `#mcp`...) to link to. */
export function developerSectionsHtml(base: string, operations: readonly Operation[], example?: ExampleEdition): string {
  // A code block scrolls inside itself, so a keyboard must be able to reach it (axe scrollable-region-focusable).
  const html = breakablePath(marked.parse(developerSections(base, operations, example).join("\n"), { async: false })).replaceAll("<pre>", '<pre tabindex="0">');
  return html.replace(/<h2>([^<]+)<\/h2>/g, (_m, title: string) => `<h2 id="${title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}">${title}</h2>`);
}
