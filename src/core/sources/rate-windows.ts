// How long a provider that answered 429 must be left alone. Pure.
//
// Open-Meteo's free tier counts calls per location in three windows and names the one exceeded in
// the 429's JSON `reason`: "Minutely API request limit exceeded. Please try again in one minute.",
// "Hourly API request limit exceeded. Please try again in the next hour.", "Daily API request limit
// exceeded. Please try again tomorrow." It sends no Retry-After. We wait out the whole named window
// from the 429 (a minute, an hour) or until the next UTC midnight for the day: never earlier, so no
// request can land inside the window it named, whether the provider's windows are fixed or rolling.

export type RateWindow = "minute" | "hour" | "day" | "unknown";

export function rateWindowOf(reason: string | undefined): RateWindow {
  if (!reason) return "unknown";
  if (/minutely|per minute|one minute/i.test(reason)) return "minute";
  if (/hourly|per hour|next hour/i.test(reason)) return "hour";
  if (/daily|per day|tomorrow/i.test(reason)) return "day";
  return "unknown";
}

/** Epoch ms before which no request may be sent: the named window, or Retry-After when it is longer (60 s when neither says). */
export function blockedUntil(window: RateWindow, nowMs: number, retryAfterMs?: number): number {
  const named = window === "minute" ? nowMs + 60_000
    : window === "hour" ? nowMs + 3_600_000
    : window === "day" ? Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), new Date(nowMs).getUTCDate() + 1)
    : nowMs + 60_000;
  return Math.max(named, nowMs + (retryAfterMs ?? 0));
}
