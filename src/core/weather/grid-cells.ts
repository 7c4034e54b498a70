// Towns that share a forecast-model grid cell share one forecast location (services/sources/run-sources.ts).
//
// 0.1° (about 11 km north-south, 8.5 km east-west at 40°N) is the key: the global models Open-Meteo
// blends for the U.S. (GFS 0.11°-0.25°, ECMWF IFS 0.1°-0.25°) are this coarse or coarser, and
// HRRR's 3 km cells only sharpen terrain effects, which a daily high/low for a town barely shows
// away from mountains. Finer keys (0.05°) cost ~2x the locations for 32,000 places; coarser ones
// (0.25°) would merge towns on different sides of a ridge or coast. The cell's centre is what is
// asked, so two towns in one cell get the very same numbers, as they would from the model itself.

export const GRID_DEGREES = 0.1;

/** The cell's centre, rounded to the grid: the location sent to the provider. */
export function gridCell(latitude: number, longitude: number): { latitude: number; longitude: number } {
  const snap = (v: number) => Number((Math.round(v / GRID_DEGREES) * GRID_DEGREES).toFixed(1));
  return { latitude: snap(latitude), longitude: snap(longitude) };
}

/** `40.7,-74` plus the timezone (daily values are cut at local midnight, so the zone is part of the answer). */
export function gridKey(latitude: number, longitude: number, timezone: string): string {
  const c = gridCell(latitude, longitude);
  return `${c.latitude},${c.longitude}|${timezone}`;
}
