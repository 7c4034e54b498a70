import { WEATHER_CACHE, weatherOperations } from "../../src/contract/operations/weather.ts";
import type { AppContext } from "../../src/services/context.ts";
import { getWeather } from "../../src/services/weather.ts";
import type { OperationRouter } from "../operation-route.ts";
import { jsonRead } from "../respond.ts";

export function weatherRoutes(router: OperationRouter, ctx: AppContext): void {
  router.add(weatherOperations.getWeather, async ({ params, event }) => {
    const { weather, source } = await getWeather(ctx, params.slug);
    return jsonRead(event, weather, WEATHER_CACHE[source]);
  });
}
