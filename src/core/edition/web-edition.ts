import { UNKNOWN_CONDITION, WMO_CONDITIONS } from "../weather/wmo.ts";

// A stored edition as the web, the feeds and the emails show it. Apart from compose.ts (which pulls in
// marked and sanitize-html), so the render worker loads only this.

/** The rule that opens the email footer; it is the only thematic break an edition has. */
const EMAIL_FOOTER_RULE = "---";

/**
 * The edition as the web shows it: without the email footer ("Read this edition online", a link
 * to the page itself, and the archive link the page already has). The sources line stays.
 */
export function webMarkdown(stored: string): string {
  const markdown = withoutMissingForecastCredit(withoutWeatherEmoji(stored));
  const at = markdown.lastIndexOf(`\n${EMAIL_FOOTER_RULE}\n`);
  if (at < 0 || !markdown.slice(at).includes("Read this edition online")) return markdown;
  return `${markdown.slice(0, at).trimEnd()}\n\n${sourcesLineOf(markdown)}\n`;
}

/** The same for the stored HTML (rendered from that markdown by `renderEditionHtml`). */
export function webHtml(html: string): string {
  const html5 = withoutMissingForecastCredit(withoutWeatherEmoji(html)).replace(/<(hr|br)\s*\/>/g, "<$1>") // HTML void elements, without XML's slash
    // On a narrow screen a wide table scrolls inside its own box, never the page.
    .replace(/<table>/g, '<div class="table-scroll"><table>').replace(/<\/table>/g, "</table></div>");
  const at = html5.lastIndexOf("<hr>");
  if (at < 0 || !html5.slice(at).includes("Read this edition online")) return html5;
  return `${html5.slice(0, at).trimEnd()}\n<p class="sources">${sourcesLineOf(html5)}</p>\n`;
}

const SOURCES_LINE = "Census figures: U.S. Census Bureau. Forecast: Open-Meteo.";

/** What the weather section of an edition without a forecast says (sections.ts `weatherSection`). */
const NO_FORECAST = "The forecast was not available this morning.";

/** The sources line in place of a legacy footer: the forecast credited only when the edition has one. */
const sourcesLineOf = (text: string) => (text.includes(NO_FORECAST) ? SOURCES_LINE.replace(" Forecast: Open-Meteo.", "") : SOURCES_LINE);

/** The forecast's credit in the sources line, as markdown or as the stored HTML (its link may go through /go). */
const FORECAST_CREDIT = /Forecast( and air quality)?: (\[Open-Meteo\.com\]\([^)\s]*\)|<a href="[^"]*">Open-Meteo\.com<\/a>) \(CC BY 4\.0\)\. ?/;

/**
 * A stored edition of a morning without a forecast, without the forecast's credit (editions composed
 * before `sourcesLine` left it out credited it anyway); air quality, when it had some, keeps its own.
 * Markdown or HTML; any other edition is returned as it is.
 */
export function withoutMissingForecastCredit(text: string): string {
  if (!text.includes(NO_FORECAST)) return text;
  return text.replace(FORECAST_CREDIT, (credit, airQuality: string | undefined, link: string) => (airQuality ? `Air quality: ${link} (CC BY 4.0).${credit.endsWith(" ") ? " " : ""}` : ""));
}

/**
 * The stored HTML as an email carries it: editions composed before "Read on the web" moved into the
 * email's own frame ended with a footer of links to the page; it gives way to the sources line, so
 * every digest says "Read on the web" once.
 */
export function withoutLegacyFooter(html: string): string {
  const at = html.search(/<hr\s*\/?>(?![\s\S]*<hr)/);
  if (at < 0 || !html.slice(at).includes("Read this edition online")) return html;
  return `${html.slice(0, at).trimEnd()}\n<p>${sourcesLineOf(html)}</p>\n`;
}

// Editions composed before the text went emoji-free put a weather emoji before each condition
// ("🌦️ **Light rain**", "| ☁️ Overcast |"). Stored editions are never rewritten, so every path that
// shows one (site, twins, feeds, emails) takes them out on the way: only an emoji of src/core/weather/wmo.ts
// directly before a condition name, so emoji a lister typed stay as typed.
const WEATHER_EMOJI = [...new Set([...Object.values(WMO_CONDITIONS), UNKNOWN_CONDITION].map((c) => c.emoji.replace(/\uFE0F/g, "")))];
const CONDITION_NAMES = [...new Set([...Object.values(WMO_CONDITIONS), UNKNOWN_CONDITION].map((c) => c.condition))]
  .sort((a, b) => b.length - a.length);
const LEGACY_EMOJI = new RegExp(`(?:${WEATHER_EMOJI.join("|")})\uFE0F? (?=(?:\\*\\*|<strong>)?(?:${CONDITION_NAMES.join("|")})\\b)`, "gu");

/** Text (markdown or HTML) of a stored edition without the weather emoji older editions carry. */
export function withoutWeatherEmoji(text: string): string {
  return text.replace(LEGACY_EMOJI, "");
}
