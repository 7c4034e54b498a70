import type { DailyForecast } from "../core/weather/snapshot.ts";
import { formatWeekday } from "./format.ts";
import { escapeHtml } from "../lib/html.ts";

/**
 * The week's forecast as an inline SVG figure: one bar per day from the low to the high (°F), with the
 * chance of precipitation under it; the figure's text alternative lists the same numbers. Empty for
 * fewer than two days.
 *
 * Drawn as one string rather than an Astro template: every edition and city page carries it, and a
 * morning renders 30,000 of them, where a template's hundred attribute calls a chart were about 7% of
 * an edition page's render. Shared attributes sit on the <svg> (inherited), coordinates are rounded to
 * tenths of a unit; each label keeps its own font-size (test/e2e/phones.test.ts reads it).
 */
export function forecastChartHtml(forecast: readonly DailyForecast[], place: string): string {
  if (forecast.length < 2) return "";
  // Font sizes are in viewBox units: the chart shrinks to about 290 px on a 320 px phone, where
  // these sizes still render at 12 px or more.
  const W = 420, H = 270, top = 34, bottom = 70, left = 4, right = 4;
  let min = Infinity, max = -Infinity;
  for (const d of forecast) {
    min = Math.min(min, d.low);
    max = Math.max(max, d.high);
  }
  min = Math.floor(min - 3);
  max = Math.ceil(max + 3);
  const y = (t: number) => top + ((max - t) / (max - min || 1)) * (H - top - bottom);
  const col = (W - left - right) / forecast.length;
  const r = Math.round;
  const days = forecast.map((d) => formatWeekday(d.date));
  const summary = forecast.map((d, i) => `${days[i]} ${r(d.high)}°/${r(d.low)}°${d.precipitationChance !== null ? `, ${r(d.precipitationChance)}% precipitation` : ""}`).join("; ");
  const titleId = `forecast-title-${forecast[0].date}`;
  let bars = "";
  forecast.forEach((d, i) => {
    const x = left + i * col + col / 2;
    const yh = y(d.high), yl = y(d.low);
    bars += `<g><rect x="${n(x - 8)}" y="${n(yh)}" width="16" height="${n(Math.max(2, yl - yh))}" rx="8" fill="url(#temp)"></rect>`
      + `<text x="${n(x)}" y="${n(yh - 9)}" font-size="20" font-weight="700" fill="#7a2c0d">${r(d.high)}°</text>`
      + `<text x="${n(x)}" y="${n(yl + 22)}" font-size="18" fill="#1f4f80">${r(d.low)}°</text>`
      + `<text x="${n(x)}" y="${H - 30}" font-size="18" font-weight="600" fill="#1b1f23">${i === 0 ? "Today" : days[i]}</text>`
      + (d.precipitationChance !== null ? `<text x="${n(x)}" y="${H - 6}" font-size="18" fill="#1f4f80">${r(d.precipitationChance)}%</text>` : "")
      + "</g>";
  });
  return `<figure class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${titleId}" xmlns="http://www.w3.org/2000/svg" text-anchor="middle" font-family="system-ui, sans-serif">`
    + `<title id="${titleId}">Forecast for ${escapeHtml(place)}, highs and lows in °F: ${escapeHtml(summary)}</title>${bars}`
    + `<defs><linearGradient id="temp" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#c4501f"></stop><stop offset="1" stop-color="#2f6fb0"></stop></linearGradient></defs></svg>`
    + "<figcaption>The week ahead: daily high and low (°F), with the chance of precipitation under each day, as forecast the morning this edition was published.</figcaption></figure>";
}

/**
 * A coordinate to a tenth of a unit (a tenth of a pixel at most, as drawn): no 17-digit floats in every
 * page. Written from integers, which V8 prints far faster than fractions (a third of the chart's time).
 */
function n(v: number): string {
  const tenths = Math.round(v * 10);
  const whole = Math.trunc(tenths / 10), tenth = Math.abs(tenths % 10);
  return tenth === 0 ? String(whole) : `${tenths < 0 && whole === 0 ? "-" : ""}${whole}.${tenth}`;
}
