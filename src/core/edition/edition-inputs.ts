import type { CalendarEvent, DirectoryListing } from "../../contract/resources.ts";
import type { WeatherSnapshot } from "../weather/snapshot.ts";
import type { CensusFact } from "../places/census-facts.ts";
import type { HolidayNote } from "../calendar/holidays.ts";
import type { SunTimes } from "../weather/sun.ts";
import type { TownSources } from "../sources/town-sources.ts";
import type { DayWeather } from "./archive-notes.ts";
import type { Lead } from "./lead.ts";

/** Everything one edition is made of; the pipeline gathers it, this module only writes. */
export interface EditionInputs {
  /** `timezone` (IANA) puts warning end times in the town's local time; UTC when absent. */
  place: { name: string; stateName: string; slug: string; timezone?: string };
  date: string; // YYYY-MM-DD in the city's timezone
  baseUrl: string;
  /** The instant of composing (ISO): alerts expired by then are never shown. Noon UTC of `date` when absent. */
  at?: string;
  /** null when the forecast could not be fetched: the edition goes out without it. */
  weather: WeatherSnapshot | null;
  sun: SunTimes;
  holidays: { today: HolidayNote[]; upcoming: HolidayNote[] };
  /** The town fact of the day (src/core/edition/did-you-know.ts factOfDay), or null on a morning without one. */
  censusFact: CensusFact | null;
  /** Listings on the town's calendar the email carries (featured ones); user-supplied text. */
  events: CalendarEvent[];
  /** The town's directory; user-supplied text. */
  listings: DirectoryListing[];
  /** What public sources add: warnings, air quality, feed events, headlines. */
  sources: TownSources;
  /** The operator's note for the date (canonical markdown from src/core/edition/note.ts), or null. */
  note?: { markdown: string; authorName: string } | null;
  /** The town's stored weather before `date` (src/store/morning/town-reads.ts weatherHistoriesOf): archive notes and weather changes. */
  history?: DayWeather[];
}

export interface ComposedEdition {
  subject: string;
  markdown: string;
  /** The fact told (its key is stored so that it does not come back within 30 mornings). */
  factKey: string | null;
  /** What led the edition, for logs and tests. */
  lead: Lead["kind"] | null;
}

