import type { GetPromptResult, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { Slug } from "../contract/common.ts";

/**
 * Prompts: ready-made tasks that name the tools to use, in order. They only write instructions;
 * the model then calls the tools (so every effect still goes through a tool and its annotations).
 */

const slugArg = Slug.meta({ description: "City slug `{city}-{state-name}`, e.g. `st-louis-missouri` (list_cities gives them)" });

// Made once: every request's server registers them.
const slugArgs = z.object({ slug: slugArg });
const businessArgs = z.object({
  slug: slugArg,
  business: z.string().min(1).max(120).meta({ description: "The business's name" }),
});

function userText(text: string): GetPromptResult {
  return { messages: [{ role: "user", content: { type: "text", text } }] };
}

export function registerPrompts(server: McpServer, baseUrl: string): void {
  server.registerPrompt("brief_me_on_a_town", {
    title: "Brief me on a town",
    description: "A short briefing on one city: today's weather, the latest edition, upcoming events and a census fact.",
    argsSchema: slugArgs,
  }, ({ slug }) => userText([
    `Brief me on the town with slug \`${slug}\`, using the citydaily tools.`,
    `1. Call get_city with {"slug": "${slug}"} for its census figures, events, directory and the dates of its editions (\`archives\`).`,
    `2. Call get_weather with {"slug": "${slug}"} for today's weather (°F, mph).`,
    "3. Call get_archive with the slug and the newest date from `archives` for the latest edition (markdown).",
    "Then write five short bullet points: the weather, the top story of the latest edition, the next events, one census figure, and the link to the city page " +
      `${baseUrl}/${slug}. Say plainly when something is unavailable (an \`isError\` result carries a problem \`code\` and \`resolution\`).`,
  ].join("\n")));

  server.registerPrompt("find_events_this_week", {
    title: "Find events this week",
    description: "What is on in a city over the next seven days, from its calendar and recent editions.",
    argsSchema: slugArgs,
  }, ({ slug }) => userText([
    `Find the events happening this week in the town with slug \`${slug}\`.`,
    `1. Call get_city with {"slug": "${slug}"}: its \`events\` list is the town's calendar.`,
    `2. Call search_archives with {"q": "event OR festival OR market OR concert", "slug": "${slug}", "limit": 10} for events mentioned in recent editions.`,
    "List the events of the next seven days by date with time, place and a one-line description; leave out past ones. " +
      "If the town has no calendar yet, say so and suggest subscribing (subscribe_city) or listing an event (create_event_listing).",
  ].join("\n")));

  server.registerPrompt("list_my_business", {
    title: "List my business",
    description: "Put a business in a city's directory: prices, the listing request and the payment link.",
    argsSchema: businessArgs,
  }, ({ slug, business }) => userText([
    `Help me list my business "${business}" in the citydaily directory of \`${slug}\`.`,
    `1. Call get_listing_prices with {"slug": "${slug}"} and show me the tiers (free with review, flat, featured) and prices.`,
    "2. Ask me for the tier, a description, a website URL and the email for the receipt; do not invent them.",
    "3. Call create_business_listing with those fields. The answer has exactly one of `checkoutUrl` (give me the payment link: I pay on the hosted page), `rejected` (tell me the reason), `held` or `queued`.",
    "4. After I have paid, follow the order with get_listing_order until `published` is true.",
  ].join("\n")));
}
