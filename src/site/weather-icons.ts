// Weather icons as inline SVG. The edition's text names each condition in words ("Light rain"); the
// web pages draw an icon before the day's condition and before each day's in the forecast table.
// Decorative (aria-hidden): the condition is always written next to it. Never emoji: some systems
// draw weather emoji as empty boxes.
import { UNKNOWN_CONDITION, WMO_CONDITIONS } from "../core/weather/wmo.ts";

const CLOUD = '<path d="M7 17h10.5a3.5 3.5 0 0 0 0-7 5.5 5.5 0 0 0-10.6 1.4A2.9 2.9 0 0 0 7 17z" fill="#dfe4ea" stroke="#4a5560" stroke-width="1.4" stroke-linejoin="round"/>';
const SUN = (cx: number, cy: number, r: number) =>
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="#f2b233" stroke="#b7791f" stroke-width="1.2"/>`;
const RAYS = '<path d="M12 2v2.5M12 19.5V22M2 12h2.5M19.5 12H22M4.9 4.9l1.8 1.8M17.3 17.3l1.8 1.8M4.9 19.1l1.8-1.8M17.3 6.7l1.8-1.8" stroke="#b7791f" stroke-width="1.6" stroke-linecap="round"/>';
const DROPS = '<path d="M9 19l-1 2.5M13 19l-1 2.5M17 19l-1 2.5" stroke="#1f5f99" stroke-width="1.6" stroke-linecap="round"/>';
const FLAKES = '<g fill="#1f5f99"><circle cx="8.5" cy="20.5" r="1.1"/><circle cx="12.5" cy="21.5" r="1.1"/><circle cx="16.5" cy="20.5" r="1.1"/></g>';
const BOLT = '<path d="M13 17l-2.5 3.5h3L11.5 24" stroke="#b7791f" stroke-width="1.6" fill="none" stroke-linecap="round" stroke-linejoin="round"/>';

const ICONS = {
  sun: { name: "clear", body: SUN(12, 12, 4.5) + RAYS },
  "sun-cloud": { name: "partly cloudy", body: SUN(9, 8, 4) + '<g transform="translate(2 2)">' + CLOUD + "</g>" },
  cloud: { name: "cloudy", body: '<g transform="translate(0 -2)">' + CLOUD + "</g>" },
  fog: { name: "fog", body: '<path d="M4 9h16M2 13h18M5 17h14" stroke="#4a5560" stroke-width="1.8" stroke-linecap="round"/>' },
  rain: { name: "rain", body: '<g transform="translate(0 -3)">' + CLOUD + "</g>" + DROPS },
  snow: { name: "snow", body: '<g transform="translate(0 -3)">' + CLOUD + "</g>" + FLAKES },
  storm: { name: "thunderstorm", body: '<g transform="translate(0 -3)">' + CLOUD + "</g>" + BOLT },
  thermometer: { name: "temperature", body: '<path d="M10 4a2 2 0 0 1 4 0v10.5a4 4 0 1 1-4 0z" fill="#fff" stroke="#4a5560" stroke-width="1.4"/><circle cx="12" cy="17.5" r="2.2" fill="#a23b12"/>' },
} as const;
export type WeatherIcon = keyof typeof ICONS;

/** Each emoji of src/core/weather/wmo.ts (without its variation selector) to its drawing. */
const BY_EMOJI: Record<string, WeatherIcon> = {
  "☀": "sun", "🌤": "sun-cloud", "⛅": "sun-cloud", "☁": "cloud", "🌫": "fog", "🌦": "rain", "🌧": "rain",
  "🌨": "snow", "❄": "snow", "⛈": "storm", "🌡": "thermometer",
};

/** Each condition name of src/core/weather/wmo.ts to its drawing (through the emoji the API gives it). */
const BY_CONDITION = new Map<string, WeatherIcon>(
  [...Object.values(WMO_CONDITIONS), UNKNOWN_CONDITION].map((c) => [c.condition, BY_EMOJI[c.emoji.replace(/\uFE0F/g, "")] ?? "thermometer"]),
);

/** The inline SVG for one icon. */
export function weatherIconSvg(icon: WeatherIcon): string {
  return `<svg class="wx" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">${ICONS[icon].body}</svg>`;
}

const NAMES = [...BY_CONDITION.keys()].sort((a, b) => b.length - a.length).join("|");
// The weather line opens its paragraph with the day's condition in bold; a forecast cell is the
// condition alone. Nothing else in an edition has either shape (user text cannot make a table).
const HEADLINE = new RegExp(`<p><strong>(${NAMES})</strong>`, "g");
const CELL = new RegExp(`<td>(${NAMES})</td>`, "g");

/** Edition HTML (without emoji: src/core/edition/compose.ts webHtml) with an icon before each condition. */
export function withWeatherIcons(html: string): string {
  return html
    .replace(HEADLINE, (_m, c: string) => `<p>${weatherIconSvg(BY_CONDITION.get(c)!)} <strong>${c}</strong>`)
    .replace(CELL, (_m, c: string) => `<td>${weatherIconSvg(BY_CONDITION.get(c)!)} ${c}</td>`);
}

/** The icon of a condition name (`undefined` when it is not one of src/core/weather/wmo.ts). */
export function iconForCondition(condition: string): WeatherIcon | undefined {
  return BY_CONDITION.get(condition);
}
