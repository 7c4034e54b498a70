// Hazards and conditions every town shares with its region, fetched once per morning run and matched
// to each town here: earthquakes (USGS), federal disaster declarations (OpenFEMA), today's tides
// (NOAA harmonics through neaps, computed locally) and a high UV index (the forecast). Pure: the
// run's data comes in as src/services/weather/hazards.ts gathered it; nothing here does I/O.
import { clockWords, shortDay } from "../calendar/event-time.ts";
import { localDate, localWallTime } from "../../lib/time.ts";

/** One earthquake of USGS's real-time summary feed. */
export interface Quake {
  /** The USGS event id ("ci40812345"): the key that keeps it from being told twice in a town. */
  id: string;
  mag: number;
  /** "12 km SW of Ridgecrest, CA". */
  place: string;
  /** Epoch ms of the origin time. */
  time: number;
  latitude: number;
  longitude: number;
  depthKm: number;
  /** The USGS event page. */
  url: string;
  /** Number of "Did You Feel It?" reports, or null. */
  felt: number | null;
  /** PAGER alert level, or null. */
  alert: "green" | "yellow" | "orange" | "red" | null;
  /** True when the event carries a tsunami flag (a message may have been issued; not that there is one). */
  tsunami: boolean;
}

/** One row of OpenFEMA's DisasterDeclarationsSummaries: one declaration for one designated area. */
export interface Declaration {
  disasterNumber: number;
  /** Two-letter state. */
  state: string;
  declarationType: "DR" | "EM" | "FM";
  /** ISO instant. */
  declarationDate: string;
  /** "Severe Storm", "Flood", "Fire". */
  incidentType: string;
  /** "SEVERE STORMS AND FLOODING" (FEMA writes titles in capitals). */
  declarationTitle: string;
  /** "06" */
  fipsStateCode: string;
  /** "081"; "000" for a statewide declaration. */
  fipsCountyCode: string;
  /** "San Mateo (County)", "Statewide". */
  designatedArea: string;
}

/** A predicted high or low tide. */
export interface TideExtreme {
  /** ISO instant. */
  time: string;
  type: "high" | "low";
  /** In `units` above the station's `datum`. */
  height: number;
}

/** Today's tides at the nearest NOAA station (src/integrations/hazards/tides.ts). */
export interface TideDay {
  station: { id: string; name: string; distanceKm: number };
  /** Chart datum the heights are above: "MLLW" (mean lower low water) for NOAA stations. */
  datum: string;
  units: "feet" | "meters";
  /** The town's local day, in order. */
  extremes: TideExtreme[];
  /** The notice the tide database asks to be shown with its data. */
  attribution: string;
}

/** What one run gathered for every town at once (src/services/weather/hazards.ts gatherRunHazards). */
export interface RunHazards {
  /** The instant the run treated as now (ISO). */
  at: string;
  /** null: USGS could not be had this run (the editions go without, and say nothing). */
  quakes: Quake[] | null;
  /** null: OpenFEMA could not be had this run. */
  declarations: Declaration[] | null;
  /** Per town geoid: today's tides, or null for a town with no NOAA station near. */
  tides: Map<string, TideDay | null>;
}

/** What a town's edition of one date gets from the run's hazards. */
export interface TownHazards {
  /** Felt (by rule or by reports) in town in the 24 h before publication, strongest first. */
  quakes: Array<{ quake: Quake; distanceKm: number; feltBy: "reports" | "rule" }>;
  /** New federal declarations for the town's county (or its whole state), one per disaster. */
  declarations: Declaration[];
  tides: TideDay | null;
}

export const NO_TOWN_HAZARDS: TownHazards = { quakes: [], declarations: [], tides: null };
export const NO_RUN_HAZARDS: RunHazards = { at: new Date(0).toISOString(), quakes: null, declarations: null, tides: new Map() };

/** The place as matching needs it. */
export interface HazardPlace {
  geoid: string;
  latitude: number;
  longitude: number;
  timezone: string;
  /** The county's 5-digit FIPS code (state + county), from the places data. */
  countyGeoid: string | null;
}

// ---------- earthquakes ----------

/** Quakes of the last this-many hours before publication are news. */
export const QUAKE_WINDOW_MS = 24 * 3_600_000;

/**
 * How far from its epicentre a quake of magnitude `mag` is commonly felt, in km:
 * log10(R) = 0.25 + 0.41 M, i.e. about 19 km at M2.5, 30 km at M3, 80 km at M4, 200 km at M5, 500 km
 * at M6 and 1,300 km at M7. A rough fit of where "Did You Feel It?" reports of intensity II-III
 * (weak, felt indoors by some) stop for shallow U.S. quakes; it is deliberately not generous, since
 * the edition says "likely felt" on its strength alone. Depth is ignored (deep quakes are rarely
 * felt near their epicentre but are few in the U.S.).
 */
export function feltRadiusKm(mag: number): number {
  if (!Number.isFinite(mag) || mag <= 0) return 0;
  return 10 ** (0.25 + 0.41 * mag);
}

/** Great-circle distance in km. */
export function distanceKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Whether a quake was felt in a town `km` from its epicentre, and on what grounds: within the rule's
 * radius ("rule"), or beyond it yet within twice the radius when at least 10 people reported feeling
 * it ("reports": USGS's own count says it reached farther than the rule).
 */
export function feltIn(q: Pick<Quake, "mag" | "felt">, km: number): "reports" | "rule" | null {
  const r = feltRadiusKm(q.mag);
  if (km <= r) return (q.felt ?? 0) > 0 ? "reports" : "rule";
  if (km <= 2 * r && (q.felt ?? 0) >= 10) return "reports";
  return null;
}

// ---------- disaster declarations ----------

/** A declaration is news for this many days after its declaration date (OpenFEMA lists them within a day or two). */
export const DECLARATION_WINDOW_DAYS = 7;

/** A row for the whole state: county code 000 and "Statewide" (a tribal nation's row may carry 000 too: it is not statewide). */
export const isStatewide = (d: Declaration) => d.fipsCountyCode === "000" && /^\s*statewide\s*$/i.test(d.designatedArea);

/** Whether a declaration row covers a county (5-digit FIPS): that county, or its whole state. */
export function declarationCovers(d: Declaration, countyGeoid: string): boolean {
  if (d.fipsStateCode !== countyGeoid.slice(0, 2)) return false;
  return (d.fipsCountyCode !== "000" && d.fipsCountyCode === countyGeoid.slice(2)) || isStatewide(d);
}

/** The key remembered once a town's edition has told a hazard (migration 018). */
export const quakeKey = (q: Quake) => `usgs:${q.id}`;
export const declarationKey = (d: Declaration) => `fema:${d.declarationType}-${d.disasterNumber}`;

/**
 * What the run's hazards give one town's edition of `date` (composed at `run.at`): quakes of the 24 h
 * before that felt in town, declarations of the last week covering its county, today's tides.
 * `told` holds the keys an earlier edition of the town already told: those are not news again.
 */
export function hazardsForTown(run: RunHazards, place: HazardPlace, date: string, told: ReadonlySet<string> = new Set()): TownHazards {
  const at = Date.parse(run.at);
  const quakes = (run.quakes ?? []).flatMap((quake) => {
    if (quake.time > at || quake.time <= at - QUAKE_WINDOW_MS || told.has(quakeKey(quake))) return [];
    const km = distanceKm(place, quake);
    const feltBy = feltIn(quake, km);
    return feltBy ? [{ quake, distanceKm: km, feltBy }] : [];
  }).sort((a, b) => b.quake.mag - a.quake.mag || a.quake.time - b.quake.time).slice(0, 3);
  const since = at - DECLARATION_WINDOW_DAYS * 86_400_000;
  const seen = new Set<string>();
  // A disaster listed for the county and statewide is told once, as the county's (it says more).
  const rows = [...(run.declarations ?? [])].sort((a, b) => Number(isStatewide(a)) - Number(isStatewide(b)) || b.declarationDate.localeCompare(a.declarationDate));
  const declarations = place.countyGeoid ? rows.filter((d) => {
    const key = declarationKey(d);
    if (seen.has(key) || told.has(key) || !declarationCovers(d, place.countyGeoid!)) return false;
    const t = Date.parse(d.declarationDate);
    if (!(t > since && t <= at)) return false;
    seen.add(key);
    return true;
  }) : [];
  return { quakes, declarations, tides: run.tides.get(place.geoid) ?? null };
}

/** The keys a town's edition tells (recorded so they are news once). */
export function hazardKeys(h: TownHazards): string[] {
  return [...h.quakes.map((q) => quakeKey(q.quake)), ...h.declarations.map(declarationKey)];
}

// ---------- UV ----------

export interface UvCategory { name: "low" | "moderate" | "high" | "very high" | "extreme"; advice: string | null }

/** The EPA's UV Index categories and, from high up, its sun-safety advice in one sentence. */
export function uvCategory(index: number): UvCategory {
  const i = Math.round(index);
  if (i <= 2) return { name: "low", advice: null };
  if (i <= 5) return { name: "moderate", advice: null };
  if (i <= 7) return { name: "high", advice: "Reduce time in the sun between 10 AM and 4 PM; seek shade, wear a hat, sunglasses and protective clothing, and put on broad-spectrum SPF 30+ sunscreen every 2 hours." };
  if (i <= 10) return { name: "very high", advice: "Minimize sun between 10 AM and 4 PM, when unprotected skin burns quickly; seek shade, cover up, and put on broad-spectrum SPF 30+ sunscreen every 2 hours." };
  return { name: "extreme", advice: "Try to avoid the sun between 10 AM and 4 PM, when unprotected skin can burn in minutes; seek shade, cover up, and put on broad-spectrum SPF 30+ sunscreen every 2 hours." };
}

/** The UV index from which the edition says anything (EPA "high"). */
export const UV_SHOWN_FROM = 6;

// ---------- words ----------

const MONTH_DAY = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

/** "6:42 AM" at the town's clock; with the day ("Wed, Nov 25, 6:42 AM") when it is not `date`. */
export function localClock(instant: number | string, timeZone: string, date?: string): string {
  // To the nearest minute (a prediction at 12:13:31 is "12:14 AM", as /api/weather rounds it).
  const t = typeof instant === "number" ? instant : Date.parse(instant);
  const wall = localWallTime(new Date(Math.round(t / 60_000) * 60_000), timeZone);
  const clock = clockWords(wall.slice(11, 16));
  return date && wall.slice(0, 10) !== date ? `${shortDay(wall.slice(0, 10))}, ${clock}` : clock;
}

const miles = (km: number) => Math.max(1, Math.round(km / 1.609344));

/** "1.3 ft", "-0.4 ft" (a low below the datum is negative), "2.1 m". */
function heightWords(h: number, units: TideDay["units"]): string {
  const v = Math.round(h * 10) / 10;
  return `${(Object.is(v, -0) ? 0 : v).toFixed(1).replace("-", "−")} ${units === "feet" ? "ft" : "m"}`;
}

const DATUM_WORDS: Record<string, string> = {
  MLLW: "mean lower low water", MLW: "mean low water", MSL: "mean sea level", LAT: "lowest astronomical tide", CD: "chart datum",
};

/** "High tide 6:42 AM (5.1 ft), low 12:58 PM (0.3 ft), high 7:02 PM (4.8 ft)". */
export function tideWords(t: TideDay, timeZone: string): string {
  const parts = t.extremes.map((e, i) => `${i === 0 ? `${e.type === "high" ? "High" : "Low"} tide` : e.type} ${localClock(e.time, timeZone)} (${heightWords(e.height, t.units)})`);
  return parts.join(", ");
}

export function tideLine(t: TideDay, timeZone: string): string {
  const where = t.station.distanceKm < 1 ? `at ${t.station.name}` : `at ${t.station.name}, ${miles(t.station.distanceKm)} mi away`;
  const datum = DATUM_WORDS[t.datum] ?? t.datum;
  return `${tideWords(t, timeZone)}. Predicted for the NOAA tide station ${where}; heights above ${datum}, not for navigation.`;
}

const PAGER: Record<NonNullable<Quake["alert"]>, string | null> = {
  green: null,
  yellow: "USGS expects some damage near the epicentre",
  orange: "USGS expects significant damage near the epicentre",
  red: "USGS expects extensive damage near the epicentre",
};

/** "A magnitude 4.2 earthquake 12 km SW of Ridgecrest, CA at 3:41 AM, about 40 mi from town: 312 people reported feeling it." */
export function quakeLine(m: TownHazards["quakes"][number], timeZone: string, date: string): string {
  const q = m.quake;
  const when = localClock(q.time, timeZone, date);
  const at = localDate(new Date(q.time), timeZone) === date ? when : `yesterday at ${when.replace(/^[A-Z][a-z]{2}, [A-Z][a-z]{2} \d+, /, "")}`;
  const where = q.place ? ` ${q.place}` : "";
  const away = m.distanceKm < 8 ? "close to town" : `about ${miles(m.distanceKm)} mi from town`;
  const felt = m.feltBy === "reports" && q.felt ? `${q.felt.toLocaleString("en-US")} ${q.felt === 1 ? "person" : "people"} told USGS they felt it` : "likely felt here";
  const extra = [q.alert ? PAGER[q.alert] : null, q.tsunami ? "check tsunami.gov for any tsunami message" : null].filter(Boolean);
  return `A magnitude ${q.mag.toFixed(1)} earthquake${where} ${at.startsWith("yesterday") ? "" : "at "}${at}, ${away}: ${felt}${extra.length ? `; ${extra.join("; ")}` : ""}.`;
}

const DECLARATION_KIND: Record<Declaration["declarationType"], string> = {
  DR: "major disaster declaration",
  EM: "emergency declaration",
  FM: "fire management assistance declaration",
};

/** "San Mateo (County)" -> "San Mateo County"; "Statewide" -> "the whole state". */
export function areaWords(d: Declaration): string {
  if (isStatewide(d)) return `all of ${d.state}`;
  const m = /^(.*?)\s*\(([^)]+)\)\s*$/.exec(d.designatedArea);
  return m ? `${m[1]} ${m[2]}` : d.designatedArea;
}

/** "SEVERE STORMS, FLOODING, AND LANDSLIDES" -> "severe storms, flooding, and landslides". */
function titleWords(d: Declaration): string {
  const t = (d.declarationTitle || d.incidentType).trim();
  return t === t.toUpperCase() ? t.toLowerCase() : t;
}

/** "A federal major disaster declaration for San Mateo County (severe storms and flooding), declared Nov 24." */
export function declarationLine(d: Declaration): string {
  const on = MONTH_DAY.format(new Date(d.declarationDate));
  return `A federal ${DECLARATION_KIND[d.declarationType]} for ${areaWords(d)} (${titleWords(d)}), declared ${on}.`;
}

/**
 * A quake felt in town as a subject's lead: "Magnitude 2.7 earthquake felt, 12 mi away" when people
 * told USGS they felt it, "Magnitude 2.5 earthquake, 10 mi away" when only the felt rule says so.
 */
export function quakeSubject(m: TownHazards["quakes"][number]): string {
  const felt = m.feltBy === "reports" && m.quake.felt ? " felt" : "";
  return `Magnitude ${m.quake.mag.toFixed(1)} earthquake${felt}, ${m.distanceKm < 8 ? "close to town" : `${miles(m.distanceKm)} mi away`}`;
}

const DECLARATION_SUBJECT: Record<Declaration["declarationType"], string> = {
  DR: "Federal disaster declaration",
  EM: "Federal emergency declaration",
  FM: "Federal fire assistance declaration",
};

/** A new declaration as a subject's lead: "Federal disaster declaration for Hancock County". */
export function declarationSubject(d: Declaration): string {
  return `${DECLARATION_SUBJECT[d.declarationType]} for ${areaWords(d)}`;
}

export const femaDisasterUrl = (d: Declaration) => `https://www.fema.gov/disaster/${d.disasterNumber}`;
