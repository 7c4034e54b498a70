import type { HazardsConfig } from "../../config/sources.ts";
import { createOpenFemaProvider, type DeclarationsProvider } from "./openfema.ts";
import { createNeapsTides, type TidesProvider } from "./tides.ts";
import { createUsgsEarthquakeProvider, type EarthquakeProvider } from "./usgs-earthquakes.ts";

// The providers of the hazards every town shares (quakes, declarations, tides), made once per app
// from its settings; the morning asks each once per run (services/weather/hazards.ts).

export interface HazardProviders {
  earthquakes: EarthquakeProvider;
  declarations: DeclarationsProvider;
  tides: TidesProvider;
  config: Pick<HazardsConfig, "timeoutMs" | "budgetMs" | "concurrency">;
}

export function createHazardProviders(config: HazardsConfig, userAgent: string): HazardProviders {
  return {
    earthquakes: createUsgsEarthquakeProvider({ baseUrl: config.usgsUrl, userAgent, timeoutMs: config.timeoutMs }),
    declarations: createOpenFemaProvider({ baseUrl: config.openFemaUrl, userAgent, timeoutMs: config.timeoutMs }),
    tides: createNeapsTides(),
    config,
  };
}
