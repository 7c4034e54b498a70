// The warning section and the air-quality line: what NWS alerts and the U.S. AQI mean for a reader
// this morning, in a few plain sentences. Pure: the alerts come in as weather-alert.ts has them.
import type { WeatherAlert } from "./weather-alert.ts";
import type { AirQuality } from "../weather/air-quality.ts";
import { instantWords } from "../calendar/event-time.ts";
import { localDate } from "../../lib/time.ts";

const SEVERITY_RANK: Record<WeatherAlert["severity"], number> = { Extreme: 0, Severe: 1, Moderate: 2, Minor: 3, Unknown: 4 };

/** Alerts still in force at `at` (never an expired one), most severe first, warnings before watches and advisories. */
export function activeAlerts(alerts: WeatherAlert[], at: string): WeatherAlert[] {
  const now = Date.parse(at);
  const kind = (a: WeatherAlert) => (/warning/i.test(a.event) ? 0 : /watch/i.test(a.event) ? 1 : 2);
  return alerts
    .filter((a) => Date.parse(a.expires) > now && (!a.ends || Date.parse(a.ends) > now))
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || kind(a) - kind(b) || a.id.localeCompare(b.id));
}

function flat(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** Up to `n` sentences, capped at `max` characters. */
function sentences(s: string, n: number, max: number): string {
  const parts = flat(s).match(/[^.!?]+[.!?]+(?=\s|$)|[^.!?]+$/g) ?? [];
  let out = parts.slice(0, n).map((p) => p.trim()).join(" ");
  if (out.length > max) out = `${out.slice(0, max - 1).trimEnd()}…`;
  return out;
}

function capitalised(s: string): string {
  const t = s.trim();
  const lower = t === t.toUpperCase() ? t.toLowerCase() : t; // NWS still writes some text in capitals
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

/**
 * What to expect, in a sentence or two. NWS descriptions are usually "* WHAT...", "* WHERE...",
 * "* WHEN...", "* IMPACTS..." paragraphs: WHAT and IMPACTS say it best; otherwise the first sentences.
 */
export function alertSummary(description: string): string {
  const field = (name: string) => new RegExp(`\\*\\s*${name}\\.{3}([\\s\\S]*?)(?=\\n\\s*\\*\\s*[A-Z ]+\\.{3}|$)`).exec(description)?.[1];
  const what = field("WHAT");
  if (what) {
    const impacts = field("IMPACTS");
    return sentences([what, impacts].filter(Boolean).map((x) => {
      const s = capitalised(flat(x!));
      return /[.!?]$/.test(s) ? s : `${s}.`;
    }).join(" "), 2, 320);
  }
  // A leading "...WIND ADVISORY IN EFFECT UNTIL 6 PM..." repeats the alert's own name and end: dropped.
  const body = description.trim().replace(/^(?:\.{3}[^\n]*?\.{3}\s*)+/, "");
  return sentences(capitalised(body.replace(/\.{3}/g, " ")), 2, 320);
}

/** "until 5:00 PM Wed, Nov 25" in the town's local time, or "" when NWS gives no end. */
export function alertUntil(a: WeatherAlert, timeZone: string): string {
  const end = a.ends ?? a.expires;
  return end ? `until ${instantWords(end, timeZone)}` : "";
}

/** True when the alert ends on the town's `date` (the subject can say "until 5:00 PM today"). */
export function endsToday(a: WeatherAlert, timeZone: string, date: string): boolean {
  return localDate(new Date(a.ends ?? a.expires), timeZone) === date;
}

/** The instruction (what to do), a few sentences of it. */
export function alertInstruction(a: WeatherAlert): string | null {
  return a.instruction && a.instruction.trim() ? sentences(capitalised(a.instruction), 3, 400) : null;
}

// ---------- air quality ----------

export interface AqiCategory { name: string; advice: string | null }

/**
 * The EPA's AQI categories and, above Moderate, the cautionary statement AirNow gives for each
 * (shortened to who should do what).
 */
export function aqiCategory(aqi: number): AqiCategory {
  if (aqi <= 50) return { name: "good", advice: null };
  if (aqi <= 100) return { name: "moderate", advice: null };
  if (aqi <= 150) return { name: "unhealthy for sensitive groups", advice: "People with heart or lung disease, older adults, children and teens should reduce prolonged or heavy exertion outdoors." };
  if (aqi <= 200) return { name: "unhealthy", advice: "People with heart or lung disease, older adults, children and teens should avoid prolonged or heavy exertion outdoors; everyone else should reduce it." };
  if (aqi <= 300) return { name: "very unhealthy", advice: "People with heart or lung disease, older adults, children and teens should avoid all physical activity outdoors; everyone else should avoid prolonged or heavy exertion." };
  return { name: "hazardous", advice: "Everyone should avoid all physical activity outdoors; people with heart or lung disease, older adults, children and teens should stay indoors and keep activity levels low." };
}

const POLLUTANT: Record<NonNullable<AirQuality["dominant"]>, string> = {
  pm2_5: "fine particles", pm10: "coarse particles", ozone: "ozone", nitrogen_dioxide: "nitrogen dioxide",
  sulphur_dioxide: "sulfur dioxide", carbon_monoxide: "carbon monoxide",
};

/** "Air quality: 112, unhealthy for sensitive groups; mostly fine particles. People with ..." */
export function airQualityLine(aq: AirQuality): string {
  const aqi = Math.round(aq.usAqi);
  const c = aqiCategory(aqi);
  const mostly = aq.dominant && aqi > 50 ? `; mostly ${POLLUTANT[aq.dominant]}` : "";
  return `Air quality: ${aqi}, ${c.name}${mostly}.${c.advice ? ` ${c.advice}` : ""}`;
}
