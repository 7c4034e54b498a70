import { describe, expect, it } from "vitest";
import { articleOf, fediverseHtml, firstSections, summarySentence, townHandle } from "../../src/core/fediverse/article.ts";
import { withoutClickLinks } from "../../src/core/edition/click-links.ts";

const BASE = "https://citydaily.example";
const weather = (code: number, high: number, low: number) => JSON.stringify({
  today: { condition: "Clear sky", temperature: 40, high, low, current: 40, precipitationChance: 0, windSpeed: 3, code },
  daily: [{ date: "2026-11-22", high, low, code, precipitationChance: 10 }],
});
const HTML = `<h1>Ely Daily: Sunday, November 22, 2026</h1>
<p>Good morning, Ely, Nevada. Here is your day, a 1-minute read.</p>
<h2>Weather</h2>
<p><strong>Overcast</strong>, 41°F at publication: high 45°F, low 20°F.</p>
<h2>On the calendar</h2>
<p>Council meeting at 6 PM (<a href="${BASE}/go/ely-nevada/2026-11-22/abcdefgh12345678?to=https%3A%2F%2Fely.example%2Fagenda%3Fa%3D1%26b%3D2">agenda</a>).</p>
<h2>Did you know?</h2>
<p>Ely is the 38th-largest of Nevada's 125 Census places.</p>
<h2>Sun</h2>
<p>Sunrise 6:30 AM.</p>
`;

describe("an edition as a fediverse Article", () => {
  it("takes the counting redirect out of every link, back to the address it leads to", () => {
    const out = withoutClickLinks(HTML, BASE);
    expect(out).toContain('<a href="https://ely.example/agenda?a=1&amp;b=2">agenda</a>');
    expect(out).not.toContain("/go/");
    // Links of another site's /go/ are left alone.
    expect(withoutClickLinks('<a href="https://other.example/go/x?to=https%3A%2F%2Fa.example">x</a>', BASE)).toContain("other.example/go/");
  });

  it("keeps the greeting and the first sections, without the title", () => {
    const out = firstSections(HTML, 2);
    expect(out.startsWith("<p>Good morning, Ely, Nevada.")).toBe(true);
    expect(out).toContain("<h2>On the calendar</h2>");
    expect(out).not.toContain("Did you know?");
    expect(out).not.toContain("<h1>");
    expect(firstSections(HTML, 10)).toContain("<h2>Sun</h2>");
  });

  it("sums up the lead and the day's forecast in one sentence, the weather said once", () => {
    expect(summarySentence("Ely, Nov 22: Council meeting at 6 PM", weather(3, 45.4, 19.6))).toBe("Council meeting at 6 PM; overcast, high 45°F, low 20°F.");
    expect(summarySentence("Ely, Nov 22: Overcast, high 45°F", weather(3, 45, 20))).toBe("Overcast, high 45°F.");
    expect(summarySentence("Ely, Nov 22: sunrise 6:30 AM, sunset 4:20 PM", null)).toBe("Sunrise 6:30 AM, sunset 4:20 PM.");
  });

  it("is named by the subject, points at the edition's page and ends with a link to the rest", () => {
    const a = articleOf({ baseUrl: BASE, slug: "ely-nevada", name: "Ely", date: "2026-11-22", subject: "Ely, Nov 22: Council meeting at 6 PM", html: HTML, weatherJson: weather(3, 45, 20) });
    expect(a.name).toBe("Ely, Nov 22: Council meeting at 6 PM");
    expect(a.url).toBe(`${BASE}/ely-nevada/2026-11-22`);
    // Opens with the subject (Misskey does not show the name); headings as bold paragraphs (Misskey flattens them).
    expect(a.content.startsWith("<p><strong>Ely, Nov 22: Council meeting at 6 PM</strong></p>\n<p>Good morning")).toBe(true);
    expect(a.content).toContain("<p><strong>Weather</strong></p>");
    expect(a.content).not.toContain("<h2>");
    expect(a.content).toContain("Did you know?");
    expect(a.content).not.toContain("Sunrise");
    expect(a.content.endsWith(`<p><a href="${BASE}/ely-nevada/2026-11-22">Read the whole edition of Ely Daily</a></p>`)).toBe(true);
  });

  it("writes a table as a line per row, numbers with their column's heading", () => {
    const table = `<div class="table-scroll"><table>\n<thead>\n<tr>\n<th>Day</th>\n<th>Conditions</th>\n<th class="num">High (°F)</th>\n</tr>\n</thead>\n<tbody><tr>\n<td>Sun, Nov 22</td>\n<td>Snow</td>\n<td class="num">30</td>\n</tr>\n<tr>\n<td>Mon, Nov 23</td>\n<td>Clear sky</td>\n<td class="num">41</td>\n</tr>\n</tbody></table></div>`;
    expect(fediverseHtml(`<h2>Weather</h2>\n${table}`)).toBe("<p><strong>Weather</strong></p>\n<p>Sun, Nov 22: Snow, High (°F) 30<br>\nMon, Nov 23: Clear sky, High (°F) 41</p>");
  });

  it("names a town by a handle on the site's host", () => {
    expect(townHandle(BASE, "ely-nevada")).toBe("@ely-nevada@citydaily.example");
    expect(townHandle("http://127.0.0.1:4321", "ely-nevada")).toBe("@ely-nevada@127.0.0.1:4321");
  });
});
