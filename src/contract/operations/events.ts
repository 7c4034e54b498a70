import { z } from "zod";
import { EVENTS_MAX_DAYS, EventsQuery, EventsResponse } from "../events.ts";
import { CACHE, READ_ONLY, type Operation } from "../operation.ts";

export const eventOperations = {
  getEvents: {
    operationId: "getEvents", method: "GET", path: "/api/events/{slug}", tags: ["Cities"],
    summary: "A town's events over a range of its local dates",
    description: `The events on a town's public calendar on the days \`from\` to \`to\` (both included, YYYY-MM-DD in the town's own time zone; default: its today and the 7 days after): its listings (free, standard, featured; paid ones \`sponsored\`) and the events of its public iCalendar feeds (recurring ones one entry per occurrence; about two weeks ahead), with the town's \`timeZone\` and \`today\`, so "what's on next Saturday" is one call with \`from\` and \`to\` that Saturday. Times are the town's wall time. The same calendar as iCalendar: \`calendarUrl\` (\`/{slug}/calendar.ics\`). A range over ${EVENTS_MAX_DAYS} days, or \`to\` before \`from\`: \`400 validation_error\`. A place without a newsletter: \`404 city_not_found\`.`,
    params: z.object({ slug: z.string().meta({ description: "City slug `{city}-{state-name}`", examples: ["ely-nevada"] }) }),
    query: EventsQuery,
    response: EventsResponse,
    errors: ["invalid_slug", "missing_slug", "city_not_found", "validation_error"],
    cache: CACHE.live,
    mcp: {
      tool: "get_events", title: "A town's events between two dates", annotations: READ_ONLY,
      description: "A town's events (one with a newsletter) on its local days `from` to `to` (default: its today and the 7 days after), with its `timeZone` and `today` to count days such as \"next Saturday\" from.",
    },
  },
} satisfies Record<string, Operation>;
