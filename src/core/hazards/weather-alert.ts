// An NWS alert as the morning gathers it (src/integrations/hazards/nws.ts) and the warning section
// tells it (alert-section.ts): plain data, the seam between fetching and composing.

/** An active National Weather Service alert (warning, watch, advisory) for the town's point. */
export interface WeatherAlert {
  /** The alert's NWS id (a URN); stable across updates of the same alert. */
  id: string;
  /** "Winter Storm Warning". */
  event: string;
  severity: "Extreme" | "Severe" | "Moderate" | "Minor" | "Unknown";
  urgency: string | null;
  /** NWS `headline`, one line. */
  headline: string | null;
  /** NWS `description` as sent (the composer takes a sentence or two). */
  description: string;
  /** NWS `instruction` (what to do), when given. */
  instruction: string | null;
  /** ISO 8601 with offset. */
  onset: string | null;
  /** When the hazard ends (`ends`, else `expires`), ISO 8601 with offset. */
  ends: string | null;
  /** When the alert message itself expires; past it the alert is never shown. */
  expires: string;
  /** "NWS Elko NV". */
  senderName: string;
  /** A page a reader can open for the whole alert. */
  url: string;
}
