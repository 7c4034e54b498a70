// Time zones as U.S. readers say them: "Eastern Time", "Atlantic Time". Intl's names follow CLDR,
// which says "Atlantic Standard Time" for Puerto Rico, "Anchorage Time" for Alaska and, for zones
// whose history differs from their metazone's in 1970, even "Eastern Standard Time" (Detroit). The
// everyday name of every U.S. zone (tzdb's zone1970.tab rows for US, PR, VI, GU, MP, AS, UM, and their
// old aliases) is written out here; Intl names only what is outside the table.

const NAMES: Record<string, readonly string[]> = {
  "Eastern Time": [
    "America/New_York", "America/Detroit", "America/Kentucky/Louisville", "America/Kentucky/Monticello",
    "America/Indiana/Indianapolis", "America/Indiana/Vincennes", "America/Indiana/Winamac", "America/Indiana/Marengo",
    "America/Indiana/Petersburg", "America/Indiana/Vevay", "America/Indianapolis", "America/Fort_Wayne",
    "America/Louisville", "US/Eastern", "US/East-Indiana", "US/Michigan", "EST5EDT",
  ],
  "Central Time": [
    "America/Chicago", "America/Indiana/Tell_City", "America/Indiana/Knox", "America/Knox_IN", "America/Menominee",
    "America/North_Dakota/Center", "America/North_Dakota/New_Salem", "America/North_Dakota/Beulah",
    "US/Central", "US/Indiana-Starke", "CST6CDT",
  ],
  "Mountain Time": [
    "America/Denver", "America/Boise", "America/Shiprock", "US/Mountain", "MST7MDT",
    // Arizona keeps Mountain Standard Time all year, and people there call it Mountain Time.
    "America/Phoenix", "US/Arizona",
  ],
  "Pacific Time": ["America/Los_Angeles", "US/Pacific", "PST8PDT"],
  "Alaska Time": ["America/Anchorage", "America/Juneau", "America/Sitka", "America/Metlakatla", "America/Yakutat", "America/Nome", "US/Alaska"],
  // Hawaii keeps one clock all year and says "Hawaii Time"; the Aleutians west of 169°30' W share
  // the zone and its official name.
  "Hawaii Time": ["Pacific/Honolulu", "Pacific/Johnston", "US/Hawaii"],
  "Hawaii-Aleutian Time": ["America/Adak", "America/Atka", "US/Aleutian"],
  "Atlantic Time": ["America/Puerto_Rico", "America/St_Thomas", "America/Virgin"],
  "Chamorro Time": ["Pacific/Guam", "Pacific/Saipan"],
  "Samoa Time": ["Pacific/Pago_Pago", "Pacific/Samoa", "Pacific/Midway", "US/Samoa"],
};

const BY_ZONE = new Map(Object.entries(NAMES).flatMap(([name, zones]) => zones.map((z) => [z, name] as const)));

/** The IANA zones with a written-out name (the unit test checks each is a zone Intl knows). */
export const NAMED_ZONES: readonly string[] = [...BY_ZONE.keys()];

// Intl.DateTimeFormat construction is costly; each zone is named once per process.
const cache = new Map<string, string>();

/**
 * The instant Intl names a zone outside the table at. A generic name ("Central European Time") is not
 * about an instant, but Intl takes one; a fixed one keeps core off the clock (it used to be the first
 * caller's `new Date()`, kept for the process by the cache above). Every U.S. zone is in the table.
 */
const NAMED_AT = Date.UTC(2026, 0, 1);

/** Readers' name for an IANA zone: "Eastern Time", "Atlantic Time", "Mountain Time" (also Arizona). */
export function timeZoneName(zone: string): string {
  let name = cache.get(zone) ?? BY_ZONE.get(zone);
  if (name === undefined) {
    try {
      name = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longGeneric" })
        .formatToParts(NAMED_AT).find((p) => p.type === "timeZoneName")?.value ?? zone;
    } catch {
      name = zone.replace(/_/g, " ");
    }
    // Readers name a zone, not the half of the year they are in.
    name = name.replace(/\s(Standard|Daylight)\s(?=Time$)/, " ");
  }
  cache.set(zone, name);
  return name;
}
