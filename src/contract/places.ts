import { z } from "zod";
import { IsoDate, LocalClock } from "./common.ts";
import { Census } from "./resources.ts";

// The place finder as an operation (find_place, GET /api/places?q=): any U.S. place by name.

export const PlaceMatch = z.object({
  slug: z.string().meta({ description: "The place's slug `{city}-{state-name}`: what every other operation takes", examples: ["ely-nevada"] }),
  name: z.string().meta({ description: "The place's name", examples: ["Ely"] }),
  state: z.string().meta({ description: "Full state name", examples: ["Nevada"] }),
  county: z.string().optional().meta({ description: "Its county, given when the state has more than one place of that name" }),
  population: z.int().min(0).meta({ description: "People (ACS 5-year estimate; 0 when unknown)" }),
  hasNewsletter: z.boolean().meta({ description: "Whether the place has a newsletter yet (an active subscriber or a published edition). Without one it has no editions, archive or weather; its first subscriber starts it." }),
  sellsListings: z.boolean().meta({ description: "Whether the town takes event and business listings now: once it has a newsletter or an operator (a lease)" }),
  url: z.url().meta({ description: "The place's page on the site (a town with no newsletter yet shows how to start one)" }),
}).meta({ id: "PlaceMatch" });
export type PlaceMatch = z.infer<typeof PlaceMatch>;

export const PlacesQuery = z.object({
  q: z.string().trim().min(2).max(100).meta({ description: "A place's name, with or without its state (`Ely, Nevada`, `marfa texas`); typos are forgiven", examples: ["marfa texas"] }),
  limit: z.coerce.number().int().min(1).max(25).default(10).meta({ description: "Matches to return, 1 to 25" }),
});

export const PlacesResponse = z.object({
  query: z.string().meta({ description: "The search as it was read" }),
  results: z.array(PlaceMatch).meta({ description: "Best match first: fewest typos, then the larger place" }),
}).meta({ id: "PlacesResponse" });
export type PlacesResponse = z.infer<typeof PlacesResponse>;



const Holiday = z.object({
  date: IsoDate,
  name: z.string(),
  kind: z.enum(["federal", "state", "observance"]).meta({ description: "`federal` U.S. holiday, `state` public holiday of the town's state, `observance` (widely marked, not a day off)" }),
}).meta({ id: "Holiday" });

export const PlaceResponse = z.object({
  slug: z.string().meta({ description: "The place's slug `{city}-{state-name}`", examples: ["marfa-texas"] }),
  name: z.string(),
  state: z.string(),
  county: z.string().nullable(),
  placeType: z.string().meta({ description: "What the Census Bureau calls it (city, town, village, CDP...)" }),
  latitude: z.number(),
  longitude: z.number(),
  hasNewsletter: z.boolean().meta({ description: "Whether it has a newsletter (then get_city, get_archive and get_weather answer for it); without one, its first subscriber starts it" }),
  sellsListings: z.boolean().meta({ description: "Whether it takes event and business listings now (once it has a newsletter or an operator)" }),
  url: z.url().meta({ description: "The place's page (its markdown twin adds `.md`)" }),
  ...LocalClock.shape,
  sun: z.object({
    sunrise: z.string().nullable().meta({ description: "Today's sunrise, local clock (e.g. `6:41 AM`)" }),
    sunset: z.string().nullable(),
    daylightMinutes: z.number().nullable(),
  }).meta({ description: "Computed for today's local date from the place's coordinates" }),
  holidays: z.object({
    today: z.array(Holiday),
    upcoming: z.array(Holiday).meta({ description: "In the next 7 days" }),
  }),
  census: Census,
}).meta({ id: "PlaceResponse" });
export type PlaceResponse = z.infer<typeof PlaceResponse>;
