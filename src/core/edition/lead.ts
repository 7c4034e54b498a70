// The lead: the most important thing in town today, chosen by rule, and the subject line follows
// it. In order: an active weather warning (watch, advisory), else a hazard public data knows of (a
// quake felt in town, then a new federal disaster declaration for its county), else today's featured
// or notable event, else the top new local headline, else a notable change in the weather. Pure.
import type { CalendarEvent } from "../../contract/resources.ts";
import { weatherChange, type DayWeather, type WeatherChange } from "./archive-notes.ts";
import type { Declaration, TownHazards } from "../hazards/town-hazards.ts";
import type { Headline } from "../sources/town-sources.ts";
import type { WeatherAlert } from "../hazards/weather-alert.ts";

export type Lead =
  | { kind: "alert"; alert: WeatherAlert }
  | { kind: "quake"; quake: TownHazards["quakes"][number] }
  | { kind: "declaration"; declaration: Declaration }
  | { kind: "event"; event: CalendarEvent }
  | { kind: "headline"; headline: Headline }
  | { kind: "weather"; change: WeatherChange };

export interface LeadInputs {
  /** Active alerts, most important first (src/core/hazards/alert-section.ts activeAlerts). */
  alerts: WeatherAlert[];
  /** Today's events as the email shows them (featured listings and the town's public calendars). */
  todayEvents: CalendarEvent[];
  headlines: Headline[];
  /** What the run's hazards give the town today (news once: src/core/hazards/town-hazards.ts hazardsForTown). */
  hazards?: Pick<TownHazards, "quakes" | "declarations"> | null;
  today: { high: number; low: number; code: number } | null;
  date: string;
  history: DayWeather[];
}

/**
 * Today's notable event: a featured listing first (the seller paid for the day), then a timed event
 * from the town's calendars before an all-day one, earliest first.
 */
export function notableEvent(events: CalendarEvent[]): CalendarEvent | null {
  const featured = events.find((e) => e.featured);
  if (featured) return featured;
  const timed = events.filter((e) => !e.allDay && /T\d{2}:\d{2}/.test(e.startsAt)).sort((a, b) => a.startsAt.localeCompare(b.startsAt) || a.id.localeCompare(b.id));
  return timed[0] ?? events[0] ?? null;
}

export function chooseLead(i: LeadInputs): Lead | null {
  if (i.alerts[0]) return { kind: "alert", alert: i.alerts[0] };
  const quake = i.hazards?.quakes[0];
  if (quake) return { kind: "quake", quake };
  const declaration = i.hazards?.declarations[0];
  if (declaration) return { kind: "declaration", declaration };
  const event = notableEvent(i.todayEvents);
  if (event) return { kind: "event", event };
  if (i.headlines[0]) return { kind: "headline", headline: i.headlines[0] };
  const change = i.today ? weatherChange(i.today, i.date, i.history) : null;
  return change ? { kind: "weather", change } : null;
}
