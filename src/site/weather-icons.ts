// Weather icons as inline SVG: the edition's text carries emoji (they suit email and markdown),
// but some systems show weather emoji as empty boxes, so the web pages swap each for a drawing.
// Decorative (aria-hidden): the condition is always written next to it.

const CLOUD = '<path d="M7 17h10.5a3.5 3.5 0 0 0 0-7 5.5 5.5 0 0 0-10.6 1.4A2.9 2.9 0 0 0 7 17z" fill="#dfe4ea" stroke="#4a5560" stroke-width="1.4" stroke-linejoin="round"/>';
const SUN = (cx: number, cy: number, r: number) =>
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="#f2b233" stroke="#b7791f" stroke-width="1.2"/>`;
const RAYS = '<path d="M12 2v2.5M12 19.5V22M2 12h2.5M19.5 12H22M4.9 4.9l1.8 1.8M17.3 17.3l1.8 1.8M4.9 19.1l1.8-1.8M17.3 6.7l1.8-1.8" stroke="#b7791f" stroke-width="1.6" stroke-linecap="round"/>';
const DROPS = '<path d="M9 19l-1 2.5M13 19l-1 2.5M17 19l-1 2.5" stroke="#1f5f99" stroke-width="1.6" stroke-linecap="round"/>';
const FLAKES = '<g fill="#1f5f99"><circle cx="8.5" cy="20.5" r="1.1"/><circle cx="12.5" cy="21.5" r="1.1"/><circle cx="16.5" cy="20.5" r="1.1"/></g>';
const BOLT = '<path d="M13 17l-2.5 3.5h3L11.5 24" stroke="#b7791f" stroke-width="1.6" fill="none" stroke-linecap="round" stroke-linejoin="round"/>';

const ICONS: Record<string, { name: string; body: string }> = {
  sun: { name: "clear", body: SUN(12, 12, 4.5) + RAYS },
  "sun-cloud": { name: "partly cloudy", body: SUN(9, 8, 4) + '<g transform="translate(2 2)">' + CLOUD + "</g>" },
  cloud: { name: "cloudy", body: '<g transform="translate(0 -2)">' + CLOUD + "</g>" },
  fog: { name: "fog", body: '<path d="M4 9h16M2 13h18M5 17h14" stroke="#4a5560" stroke-width="1.8" stroke-linecap="round"/>' },
  rain: { name: "rain", body: '<g transform="translate(0 -3)">' + CLOUD + "</g>" + DROPS },
  snow: { name: "snow", body: '<g transform="translate(0 -3)">' + CLOUD + "</g>" + FLAKES },
  storm: { name: "thunderstorm", body: '<g transform="translate(0 -3)">' + CLOUD + "</g>" + BOLT },
  thermometer: { name: "temperature", body: '<path d="M10 4a2 2 0 0 1 4 0v10.5a4 4 0 1 1-4 0z" fill="#fff" stroke="#4a5560" stroke-width="1.4"/><circle cx="12" cy="17.5" r="2.2" fill="#a23b12"/>' },
};

/** Each emoji of src/core/wmo.ts (without its variation selector) to its drawing. */
const BY_EMOJI: Record<string, keyof typeof ICONS> = {
  "☀": "sun", "🌤": "sun-cloud", "⛅": "sun-cloud", "☁": "cloud", "🌫": "fog", "🌦": "rain", "🌧": "rain",
  "🌨": "snow", "❄": "snow", "⛈": "storm", "🌡": "thermometer",
};

/** The inline SVG for one icon. */
export function weatherIconSvg(icon: keyof typeof ICONS): string {
  return `<svg class="wx" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">${ICONS[icon].body}</svg>`;
}

const EMOJI = new RegExp(`(${Object.keys(BY_EMOJI).join("|")})\\uFE0F?`, "gu");

/** HTML with every weather emoji replaced by its inline SVG. */
export function withWeatherIcons(html: string): string {
  return html.replace(EMOJI, (_m, e: string) => weatherIconSvg(BY_EMOJI[e]!));
}

/** The icon of an emoji, for templates (`undefined` when it is not a weather emoji). */
export function iconForEmoji(emoji: string): keyof typeof ICONS | undefined {
  return BY_EMOJI[emoji.replace(/\uFE0F/g, "")];
}
