import { z } from "zod";

// The place finder as an operation (find_place, GET /api/places?q=): any U.S. place by name.

export const PlaceMatch = z.object({
  slug: z.string().meta({ description: "The place's slug `{city}-{state-name}`: what every other operation takes", examples: ["ely-nevada"] }),
  name: z.string().meta({ description: "The place's name", examples: ["Ely"] }),
  state: z.string().meta({ description: "Full state name", examples: ["Nevada"] }),
  county: z.string().optional().meta({ description: "Its county, given when the state has more than one place of that name" }),
  population: z.int().min(0).meta({ description: "People (ACS 5-year estimate; 0 when unknown)" }),
  hasNewsletter: z.boolean().meta({ description: "Whether the place has a newsletter yet (an active subscriber or a published edition). Without one it can still be subscribed to: the first subscriber starts it." }),
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
