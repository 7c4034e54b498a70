import { describe, expect, it } from "vitest";
import { forecastChartHtml } from "../../src/site/forecast-chart.ts";

const day = (date: string, high: number, low: number, precipitationChance: number | null = 20) => ({ date, high, low, code: 3, precipitationChance });

describe("the forecast chart", () => {
  const week = [day("2026-11-22", 48.4, 31.2, 10), day("2026-11-23", 50, 32, null), day("2026-11-24", 61.6, 40)];

  it("draws one bar a day with its high, low, day and chance of precipitation, and says the same in its title", () => {
    const html = forecastChartHtml(week, "Bar Harbor & Co <Main>");
    expect(html).toMatch(/^<figure class="chart"><svg viewBox="0 0 420 270" role="img" aria-labelledby="forecast-title-2026-11-22"/);
    expect(html).toContain(`<title id="forecast-title-2026-11-22">Forecast for Bar Harbor &amp; Co &lt;Main&gt;, highs and lows in °F: Sun 48°/31°, 10% precipitation; Mon 50°/32°; Tue 62°/40°, 20% precipitation</title>`);
    expect(html.match(/<rect /g)).toHaveLength(3);
    const labels = [...html.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(labels).toEqual(["48°", "31°", "Today", "10%", "50°", "32°", "Mon", "62°", "40°", "Tue", "20%"]);
    // Every label carries its own size (at least 18 viewBox units: legible on a 320 px phone).
    expect([...html.matchAll(/<text [^>]*font-size="(\d+)"/g)].map((m) => Number(m[1])).every((s) => s >= 18)).toBe(true);
    // Coordinates in tenths at most.
    expect(html).not.toMatch(/\d\.\d{2}/);
    expect(html).toContain('<rect x="64.7" y="108.5" width="16" height="77.2"');
  });

  it("puts the warmest day's bar highest and gives a day with no range a visible bar", () => {
    const html = forecastChartHtml([day("2026-11-22", 40, 40), day("2026-11-23", 70, 50)], "Ely");
    const bars = [...html.matchAll(/<rect x="[^"]*" y="([^"]*)" width="16" height="([^"]*)"/g)].map((m) => ({ y: Number(m[1]), h: Number(m[2]) }));
    expect(bars[1].y).toBeLessThan(bars[0].y);
    expect(bars[0].h).toBe(2);
  });

  it("draws nothing for fewer than two days", () => {
    expect(forecastChartHtml([], "Ely")).toBe("");
    expect(forecastChartHtml([day("2026-11-22", 40, 30)], "Ely")).toBe("");
  });
});
