// The air-quality reading as the morning gathers it (src/integrations/weather/air-quality.ts) and the
// edition's air-quality line tells it (src/core/hazards/alert-section.ts): plain data.

/** The U.S. AQI now, from Open-Meteo's air-quality API. */
export interface AirQuality {
  usAqi: number;
  /** The pollutant with the highest sub-index, when known. */
  dominant: "pm2_5" | "pm10" | "ozone" | "nitrogen_dioxide" | "sulphur_dioxide" | "carbon_monoxide" | null;
  /** ISO 8601 of the reading. */
  asOf: string;
}
