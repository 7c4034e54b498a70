import { completable, type GetPromptResult, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { BusinessCheckoutRequest, ListingTierId } from "../contract/commerce.ts";
import { Slug } from "../contract/common.ts";
import { operationsById } from "../contract/operations/index.ts";

/**
 * Prompts: ready-made tasks that name the tools to use, in order. They only write instructions;
 * the model then calls the tools (so every effect still goes through a tool and its annotations).
 * Each is a plan of steps built from the contract (tool names from the operations' projections,
 * fields from their schemas), so a prompt cannot name a tool or a field that does not exist; the
 * MCP tests run every plan's calls with the arguments it suggests.
 */

/** One call a prompt asks for. */
export interface PromptStep {
  tool: string;
  /** The arguments the prompt writes out. */
  args: Record<string, unknown>;
  /** Arguments taken from an earlier step's result: name -> dotted path in that result (e.g. `archives.0.date`). */
  from?: { step: number; args: Record<string, string> };
  /** Arguments the person must give (the prompt tells the model to ask, never to invent them). */
  ask?: string[];
  /** What to do with the answer. */
  then: string;
}

export interface PromptPlan {
  name: string;
  title: string;
  description: string;
  argsSchema: z.ZodObject<Record<string, z.ZodString>>;
  /** The plan for given arguments: an opening line, the steps, a closing paragraph. */
  plan: (args: Record<string, string>, baseUrl: string) => { intro: string; steps: PromptStep[]; outro: string };
}

const tool = (id: keyof typeof operationsById): string => {
  const name = (operationsById[id] as { mcp?: { tool: string } }).mcp?.tool;
  if (!name) throw new Error(`${id} is not an MCP tool`);
  return name;
};

const slugArg = Slug.meta({ description: "City slug `{city}-{state-name}`, e.g. `st-louis-missouri` (find_place gives any town's)" });
const slugArgs = z.object({ slug: slugArg });
const businessArgs = z.object({
  slug: slugArg,
  business: z.string().min(1).max(120).meta({ description: "The business's name" }),
});

const code = (s: string) => `\`${s}\``;
const list = (items: string[]) => items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;

/** The fields of a business listing the person must supply: every field of the contract the prompt does not fill itself. */
function businessFieldsToAsk(given: string[]): string[] {
  return Object.keys(BusinessCheckoutRequest.shape).filter((k) => !given.includes(k));
}

export const PROMPTS: PromptPlan[] = [
  {
    name: "brief_me_on_a_town",
    title: "Brief me on a town",
    description: "A short briefing on one city: today's weather, the latest edition, upcoming events and a census fact.",
    argsSchema: slugArgs,
    plan: ({ slug }, baseUrl) => ({
      intro: `Brief me on the town with slug ${code(slug)}, using the citydaily tools.`,
      steps: [
        { tool: tool("getCity"), args: { slug }, then: "its census figures, events, directory and the dates of its editions (`archives`, newest first)." },
        { tool: tool("getWeather"), args: { slug }, then: "today's weather (°F, mph)." },
        { tool: tool("getArchive"), args: { slug }, from: { step: 1, args: { date: "archives.0.date" } }, then: "the latest edition (markdown); `date` is the first of `archives` from step 1." },
      ],
      outro: "Then write five short bullet points: the weather, the top story of the latest edition, the next events, one census figure, and the link to the city page " +
        `${baseUrl}/${slug}. Say plainly when something is unavailable (an \`isError\` result carries a problem \`code\` and \`resolution\`).`,
    }),
  },
  {
    name: "find_events_this_week",
    title: "Find events this week",
    description: "What is on in a city over the next seven days, from its calendar and recent editions.",
    argsSchema: slugArgs,
    plan: ({ slug }) => ({
      intro: `Find the events happening this week in the town with slug ${code(slug)}.`,
      steps: [
        { tool: tool("getCity"), args: { slug }, then: "its `events` list is the town's calendar; its `localDate` and `weekday` are today there, the day \"this week\" counts from." },
        { tool: tool("searchArchive"), args: { q: "event OR festival OR market OR concert", slug, limit: 10 }, then: "events mentioned in recent editions." },
      ],
      outro: "List the events of the next seven days (from the town's `localDate`, not your own clock) by date with time, place and a one-line description; leave out past ones. " +
        `If the town has no newsletter (a \`city_not_found\` with \`reason: no_newsletter\`), say so plainly, give its facts from ${tool("getPlace")}, and say a reader's own subscription (${tool("subscribe")}) starts it; if it has no calendar yet, say so and suggest listing an event (${tool("createListingCheckout")}) where the town sells listings.`,
    }),
  },
  {
    name: "list_my_business",
    title: "List my business",
    description: "Put a business in a city's directory: prices, the listing request and the payment link.",
    argsSchema: businessArgs,
    plan: ({ slug, business }) => {
      const given = { slug, title: business };
      return {
        intro: `Help me list my business "${business}" in the citydaily directory of ${code(slug)}.`,
        steps: [
          { tool: tool("getPricing"), args: {}, then: `show me the \`business\` tiers (${list(ListingTierId.options.map(code))}) with their prices and what each includes, and the listing policy (\`policy\`).` },
          {
            tool: tool("createBusinessCheckout"), args: given, ask: businessFieldsToAsk(Object.keys(given)),
            then: "the answer has exactly one of `checkoutUrl` (give me the payment link: I pay on that page), `rejected` (tell me the `reason`), `held` or `queued` (a person looks first). Keep its `orderId`.",
          },
          { tool: tool("getListingOrder"), args: {}, from: { step: 2, args: { id: "orderId" } }, then: "after I have paid, call it again until `published` is true." },
        ],
        outro: "Never invent the fields you ask me for; if I do not know one, stop and say which.",
      };
    },
  },
];

/** A step as the prompt's text says it. */
function stepText(step: PromptStep, i: number): string {
  const parts = [`${i + 1}. Call ${step.tool} with ${JSON.stringify(step.args)}`];
  if (step.from) parts.push(` plus ${list(Object.entries(step.from.args).map(([k, path]) => `${code(k)} from step ${step.from!.step}'s ${code(path.split(".")[0])}`))}`);
  if (step.ask?.length) parts.push(` plus ${list(step.ask.map(code))}, which you ask me for`);
  return `${parts.join("")}: ${step.then}`;
}

export function promptText(plan: ReturnType<PromptPlan["plan"]>): string {
  return [plan.intro, ...plan.steps.map(stepText), plan.outro].join("\n");
}

function userText(text: string): GetPromptResult {
  return { messages: [{ role: "user", content: { type: "text", text } }] };
}

/** Completes a partly typed slug (`completion/complete`). */
export type SlugCompleter = (value: string) => string[];

/** The prompts as every request's server registers them, made once per app: `slug` arguments complete. */
export interface PromptCatalog {
  prompts: Array<{ plan: PromptPlan; argsSchema: z.ZodObject<Record<string, z.ZodString>> }>;
}

export function createPromptCatalog(completeSlug: SlugCompleter): PromptCatalog {
  return {
    prompts: PROMPTS.map((plan) => ({
      plan,
      // A copy per app: completable() marks the schema it is given.
      argsSchema: z.object(Object.fromEntries(Object.entries(plan.argsSchema.shape).map(([k, s]) => [k, k === "slug" ? completable(s.clone(), (v) => completeSlug(String(v ?? ""))) : s]))) as z.ZodObject<Record<string, z.ZodString>>,
    })),
  };
}

export function registerPrompts(server: McpServer, baseUrl: string, catalog: PromptCatalog): void {
  for (const { plan: p, argsSchema } of catalog.prompts) {
    server.registerPrompt(p.name, { title: p.title, description: p.description, argsSchema }, (args: Record<string, string>) => userText(promptText(p.plan(args, baseUrl))));
  }
}
