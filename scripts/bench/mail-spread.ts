import { deliveryInstant } from "../../src/core/readers/preferences.ts";
import { localDate, wallTimeToInstant } from "../../src/lib/time.ts";

/**
 * The morning `npm run bench:mail -- --spread` plays: today in New York, the digests queued at
 * 4:00 AM there, and the five delivery times readers are spread over (5:00 to 9:00 AM), as epoch ms.
 */
export function benchMorning(): { date: string; queuedAt: number; hours: Array<{ label: string; at: number }> } {
  const zone = "America/New_York";
  const date = localDate(new Date(), zone);
  return {
    date,
    queuedAt: wallTimeToInstant(`${date}T04:00`, zone).getTime(),
    hours: [300, 360, 420, 480, 540].map((m) => ({ label: `${m / 60}:00`, at: deliveryInstant(date, zone, m) })),
  };
}
