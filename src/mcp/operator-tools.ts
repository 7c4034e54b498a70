import type { CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { IdempotencyKey } from "../contract/common.ts";
import { OPERATOR_SCOPES, type OperatorScope } from "../contract/oauth.ts";
import { RejectForm } from "../contract/operator.ts";
import { AppError } from "../core/errors.ts";
import { NOTE_AUTHOR_MAX } from "../core/edition/note.ts";
import { decideListing, nextEditionDate, operatorTowns, removeDeskFeed, restoreDeskDirectorySource, saveNote, townDesk } from "../services/commerce/operator-desk.ts";
import { removedDirectorySources } from "../services/directory/sources.ts";
import { runningLease, type OperatorCaller } from "../services/oauth/tokens.ts";
import { runOnce } from "../services/operations/run-once.ts";
import type { AppContext } from "../services/platform/context.ts";
import { listFeeds } from "../services/sources/feeds.ts";
import { Reply } from "../services/platform/reply.ts";
import { toolError } from "./tools.ts";

// The operator's tools: what the desk does (api/routes/operator/), for the AI client an operator
// signed in (src/services/oauth/). Each is a thin call of the desk's own service function, after the
// token's scope and the lease are checked; nothing here decides a rule of its own. They are listed
// and answered only to a request carrying the operator's access token, and never cached.

const Slug = z.string().trim().toLowerCase().min(1).max(120).describe("The town's slug, as list_my_towns gives it (e.g. boise-idaho).");
const key = { idempotencyKey: IdempotencyKey.optional() };

interface OperatorTool {
  name: string;
  title: string;
  description: string;
  /** The scope the token must carry; undefined: any operator token. */
  scope?: OperatorScope;
  input: z.ZodRawShape;
  /** A write: takes `idempotencyKey`, and runs once per key. */
  write?: boolean;
  run(ctx: AppContext, operator: OperatorCaller, input: Record<string, unknown>): unknown;
}

/** The desk's view of a town the caller leases and whose lease runs (every tool but list_my_towns names one). */
const desk = (ctx: AppContext, op: OperatorCaller, slug: unknown) => townDesk(ctx, op.email, runningLease(ctx, op, String(slug)).slug);

export const OPERATOR_TOOLS: readonly OperatorTool[] = [
  {
    name: "list_my_towns", title: "My towns", description: "The towns you lease and run now, by slug, and what this client may do for you.",
    input: {},
    run: (ctx, op) => ({
      towns: operatorTowns(ctx, op.email).filter((l) => l.status === "active").map((l) => ({ slug: l.slug, town: `${l.town_name}, ${l.state_name}`, cancelledUntil: l.cancel_at })),
      scopes: [...op.scopes],
    }),
  },
  {
    name: "get_town_audience", title: "Town audience", scope: "town:read", description: "Your town's subscribers, who joined and left each day of the last 30, copies sent per edition, referrals and clicks.",
    input: { slug: Slug },
    run: (ctx, op, { slug }) => desk(ctx, op, slug).audience,
  },
  {
    name: "get_town_statement", title: "Town statement", scope: "town:read", description: "Your town's monthly statement (listing sales, your share, lease charges, transfers) and the end of the paid period.",
    input: { slug: Slug },
    run: (ctx, op, { slug }) => {
      const view = desk(ctx, op, slug);
      return { statement: view.statement, paidThrough: view.paidThrough };
    },
  },
  {
    name: "list_pending_listings", title: "Listings to review", scope: "listings:decide", description: "The listings bought in your town that wait for your approval, with what the buyer wrote.",
    input: { slug: Slug },
    run: (ctx, op, { slug }) => ({
      listings: desk(ctx, op, slug).review.map(({ order: o, decisions }) => ({
        orderId: o.id, product: o.product, tier: o.tier, status: o.status, title: o.title, description: o.description, url: o.url,
        startsAt: o.starts_at, endsAt: o.ends_at, venue: o.venue, address: o.address, category: o.category, createdAt: o.created_at,
        decisions: decisions.map((d) => ({ decision: d.decision, reason: d.reason, by: d.byRole, at: d.createdAt })),
      })),
    }),
  },
  {
    name: "decide_listing", title: "Approve or reject a listing", scope: "listings:decide", write: true,
    description: "Approves a listing waiting in your town (published, or its buyer gets the payment link) or rejects it with a reason the buyer reads on their order page (their email says only that it was rejected).",
    input: { slug: Slug, orderId: z.string().regex(/^lo_[0-9a-f-]{36}$/).describe("The listing's orderId from list_pending_listings."), decision: z.enum(["approve", "reject"]), reason: RejectForm.shape.reason.optional().describe("Why, for a rejection: the buyer reads it."), ...key },
    run: async (ctx, op, { slug, orderId, decision, reason }) => {
      if (decision === "reject" && !reason) throw new AppError("validation_error", "A rejection needs a reason: the buyer reads it.", { issues: [{ path: "reason", message: "Say why, in a few words: the buyer reads it." }] });
      const lease = runningLease(ctx, op, String(slug));
      const order = await decideListing(ctx, op.email, lease.slug, String(orderId), decision as "approve" | "reject", reason as string | undefined);
      return { orderId: order.id, status: order.status };
    },
  },
  {
    name: "get_notes", title: "Notes", scope: "notes:write", description: "The date of your town's next edition and the notes written for it and later ones.",
    input: { slug: Slug },
    run: (ctx, op, { slug }) => desk(ctx, op, slug).notes,
  },
  {
    name: "write_note", title: "Write a note", scope: "notes:write", write: true,
    description: "Saves the short markdown note your town's edition of `date` (the next one by default) carries under its greeting, signed with `authorName`.",
    input: { slug: Slug, markdown: z.string().max(4000), authorName: z.string().max(NOTE_AUTHOR_MAX), date: z.iso.date().optional().describe("The edition's date (YYYY-MM-DD); the next edition when left out."), ...key },
    run: (ctx, op, { slug, markdown, authorName, date }) => {
      const lease = runningLease(ctx, op, String(slug));
      return saveNote(ctx, op.email, lease.slug, { date: String(date ?? nextEditionDate(ctx, lease)), markdown: String(markdown), authorName: String(authorName) });
    },
  },
  {
    name: "list_sources", title: "Sources", scope: "sources:manage", description: "Your town's feeds (calendars and news), and the town directory's sources you paused, which restore_source brings back.",
    input: { slug: Slug },
    run: (ctx, op, { slug }) => {
      const lease = runningLease(ctx, op, String(slug));
      return { feeds: listFeeds(ctx, lease.slug).feeds, paused: removedDirectorySources(ctx, lease.slug) };
    },
  },
  {
    name: "pause_source", title: "Pause a source", scope: "sources:manage", write: true,
    description: "Takes a feed out of your town's editions (one the town directory found stays paused until restore_source).",
    input: { slug: Slug, id: z.int().positive().describe("The feed's id from list_sources."), ...key },
    run: (ctx, op, { slug, id }) => removeDeskFeed(ctx, op.email, runningLease(ctx, op, String(slug)).slug, Number(id)),
  },
  {
    name: "restore_source", title: "Restore a source", scope: "sources:manage", write: true,
    description: "Checks a paused source of the town directory again and, if it still works, puts it back in your town's feeds.",
    input: { slug: Slug, url: z.url().max(4000).describe("The paused source's url from list_sources."), ...key },
    run: async (ctx, op, { slug, url }) => {
      const lease = runningLease(ctx, op, String(slug));
      await restoreDeskDirectorySource(ctx, op.email, lease.slug, String(url));
      return { restored: true, sources: listFeeds(ctx, lease.slug).feeds };
    },
  },
];

export const OPERATOR_TOOL_SCOPES: ReadonlyMap<string, OperatorScope | undefined> = new Map(OPERATOR_TOOLS.map((t) => [t.name, t.scope]));

const answer = (data: unknown, replayed = false): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(data) }],
  structuredContent: JSON.parse(JSON.stringify(data ?? {})) as Record<string, unknown>,
  ...(replayed ? { _meta: { "citydaily/idempotentReplayed": true } } : {}),
});

/** Registers the operator's tools on a request's server, for the operator its token names. */
export function registerOperatorTools(server: McpServer, ctx: AppContext, operator: OperatorCaller): void {
  for (const tool of OPERATOR_TOOLS) {
    const schema = z.strictObject(tool.input);
    const annotations = { readOnlyHint: !tool.write, destructiveHint: tool.name === "pause_source", idempotentHint: !tool.write || tool.name !== "decide_listing", openWorldHint: false };
    server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: schema, annotations }, async (args: unknown): Promise<CallToolResult> => {
      try {
        if (tool.scope && !operator.scopes.has(tool.scope)) {
          throw new AppError("forbidden", `${tool.name} needs the ${tool.scope} permission (${OPERATOR_SCOPES[tool.scope]}), which you did not give this client; connect it again and allow it.`);
        }
        const { idempotencyKey, ...input } = args as Record<string, unknown>;
        if (!tool.write || typeof idempotencyKey !== "string") return answer(await tool.run(ctx, operator, input));
        const once = await runOnce(ctx, `mcp:${tool.name}`, input, idempotencyKey, async () => new Reply(await tool.run(ctx, operator, input)), { scope: operator.email });
        return answer(once.reply.data, once.replayed);
      } catch (error) {
        return toolError(ctx, tool.name, error);
      }
    });
  }
}
