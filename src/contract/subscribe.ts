import { z } from "zod";
import { Slug } from "./common.ts";

// SubscribeRequest / SubscribeResponse (spec section 2).

const utm = (name: string) => z.string().max(200).nullable().optional().meta({ description: `Campaign attribution (\`${name}\`), stored with the subscriber` });

export const SubscribeRequest = z.object({
  email: z.email("must be an email address such as name@example.com").max(254).meta({ description: "The address that receives the newsletter", example: "reader@example.com" }),
  city: z.string().trim().min(1).max(120).meta({ description: "City name as in the dataset, e.g. `St. Louis` (matched case- and accent-insensitively)", example: "St. Louis" }),
  state: z.string().trim().min(1).max(60).meta({ description: "Full state name (a two-letter postal code is also accepted)", example: "Missouri" }),
  slug: Slug,
  honeypot: z.string().max(500).optional().meta({ description: "Anti-bot field of the signup form: leave it empty" }),
  referrer: z.string().max(2000).optional().meta({ description: "The page that sent the reader to the signup form" }),
  utm_source: utm("utm_source"),
  utm_medium: utm("utm_medium"),
  utm_campaign: utm("utm_campaign"),
  ref: z.string().trim().max(32).optional().meta({ description: "Referral code from a reader's \"Forward to a neighbor\" link (`?ref=` on the town page): the new subscription is counted for that reader. An unknown code is ignored", example: "3f9a1c0b7d2e" }),
  landing_path: z.string().max(2000).optional().meta({ description: "Path of the page the signup form was on", example: "/st-louis-missouri" }),
}).meta({ id: "SubscribeRequest" });
export type SubscribeRequest = z.output<typeof SubscribeRequest>;

export const SubscribeResponse = z.object({
  success: z.boolean(),
  message: z.string().optional(),
}).meta({ id: "SubscribeResponse" });
export type SubscribeResponse = z.infer<typeof SubscribeResponse>;
