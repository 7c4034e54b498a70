import { withoutClickLinks } from "../edition/click-links.ts";
import { webHtml } from "../edition/web-edition.ts";
import { describeWeatherCode } from "../weather/wmo.ts";
import { readStoredWeather } from "../weather/snapshot.ts";
import { plainText, temperature } from "../edition/escape.ts";
import { escapeHtml } from "../../lib/html.ts";

// An edition as the fediverse gets it: an Article (a title, the edition's page, a one-sentence
// summary and the opening of the edition in HTML), and the town actor's profile. Pure: everything
// comes in as arguments.
//
// Shaped for what the two big servers show of an Article (docs/fediverse.md):
// - Mastodon shows its name, its summary and its link, never its content;
// - Misskey shows its content (flattening headings and dropping tables' shape), never its name, and
//   turns a `summary` into a content warning hiding everything else.
// So the summary is sent language-tagged only (`summaryMap`, which Mastodon reads and Misskey does
// not: no warning), and the content opens with the subject and has no headings or tables to flatten.

/** Sections of the edition the Article carries after its greeting; the rest is one link away. */
export const ARTICLE_SECTIONS = 3;

export interface ArticleEdition {
  baseUrl: string;
  slug: string;
  /** The town's name, e.g. "Ely". */
  name: string;
  date: string;
  subject: string;
  /** The stored HTML (`editions.html`). */
  html: string;
  weatherJson: string | null;
}

export interface ArticleShape {
  /** The edition's subject. */
  name: string;
  /** The edition's page on the site. */
  url: string;
  /** The lead and the forecast, in a sentence. */
  summary: string;
  /**
   * The subject, then the greeting and the first sections, without counted links, its headings as
   * bold paragraphs and its tables as lines (`fediverseHtml`), then a link to the whole edition.
   */
  content: string;
}


/** The greeting and the first `sections` h2 sections of an edition's HTML, without its h1 title. */
export function firstSections(html: string, sections: number): string {
  const body = html.replace(/^\s*<h1[^>]*>[\s\S]*?<\/h1>\s*/, "");
  const starts = [...body.matchAll(/<h2[\s>]/g)].map((m) => m.index);
  const cut = starts.length > sections ? starts[sections] : body.length;
  return body.slice(0, cut).trim();
}

/** The lead (the subject after "Town, Mon D: ") and the day's forecast as one sentence. */
export function summarySentence(subject: string, weatherJson: string | null): string {
  const lead = subject.replace(/^[^:]{1,80}: /, "").trim();
  const { today, daily } = readStoredWeather(weatherJson);
  const day = daily[0];
  const condition = day ? describeWeatherCode(day.code).condition : today?.condition;
  const high = day?.high ?? today?.high;
  const low = day?.low ?? today?.low;
  const parts = [lead];
  // A lead that is already the weather ("Snow, high 30°F") is not said twice.
  if (condition && high != null && !lead.toLowerCase().includes(condition.toLowerCase())) {
    parts.push(`${condition.toLowerCase()}, high ${temperature(high)}${low != null ? `, low ${temperature(low)}` : ""}`);
  }
  const sentence = parts.filter(Boolean).join("; ");
  return plainText(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}${/[.!?]$/.test(sentence) ? "" : "."}`);
}

const cellsOf = (row: string) => [...row.matchAll(/<t([hd])([^>]*)>([\s\S]*?)<\/t\1>/g)].map((m) => ({ text: m[3].trim(), numeric: /class="num"/.test(m[2]) }));

/** A table as one paragraph, a line per row: "Sun, Nov 22: Heavy snow, High (°F) 30, Low (°F) 18". */
function tableAsLines(table: string): string {
  const rows = [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => cellsOf(m[1]));
  const [head, ...body] = /<thead>/.test(table) ? rows : [[], ...rows];
  const lines = body.map((cells) => {
    const rest = cells.slice(1).map((c, i) => (c.numeric && head[i + 1] ? `${head[i + 1].text} ${c.text}` : c.text));
    return rest.length ? `${cells[0]?.text ?? ""}: ${rest.join(", ")}` : cells[0]?.text ?? "";
  });
  return `<p>${lines.join("<br>\n")}</p>`;
}

/**
 * An edition's HTML as servers that flatten it still read it well: headings become bold paragraphs,
 * tables a line per row (Misskey would run a table's cells together), their scrolling wrappers gone.
 */
export function fediverseHtml(html: string): string {
  return html
    .replace(/<div class="table-scroll">\s*(<table[\s\S]*?<\/table>)\s*<\/div>/g, "$1")
    .replace(/<table[\s\S]*?<\/table>/g, tableAsLines)
    .replace(/<h[2-6][^>]*>([\s\S]*?)<\/h[2-6]>/g, "<p><strong>$1</strong></p>");
}

export function editionPageUrl(baseUrl: string, slug: string, date: string): string {
  return `${baseUrl}/${slug}/${date}`;
}

export function articleOf(e: ArticleEdition): ArticleShape {
  const url = editionPageUrl(e.baseUrl, e.slug, e.date);
  const opening = fediverseHtml(firstSections(withoutClickLinks(webHtml(e.html), e.baseUrl), ARTICLE_SECTIONS));
  return {
    name: e.subject,
    url,
    summary: summarySentence(e.subject, e.weatherJson),
    content: `<p><strong>${escapeHtml(e.subject)}</strong></p>\n${opening}\n<p><a href="${escapeHtml(url)}">Read the whole edition of ${escapeHtml(e.name)} Daily</a></p>`,
  };
}

/** The town actor's profile. */
export function actorProfile(baseUrl: string, town: { slug: string; name: string; state: string }): { name: string; summary: string; url: string } {
  return {
    name: `${town.name} Daily`,
    summary: `<p>The free morning newsletter for ${escapeHtml(town.name)}, ${escapeHtml(town.state)}: the weather, the town calendar, local news and notices, each morning.</p>`,
    url: `${baseUrl}/${town.slug}`,
  };
}

/** The fediverse handle of a town, `@ely-nevada@citydaily.example` (the host of `baseUrl`, with its port). */
export function townHandle(baseUrl: string, slug: string): string {
  return `@${slug}@${new URL(baseUrl).host}`;
}
