import { operationsById, type OperationId } from "../../contract/operations/index.ts";
import type { Operation, OperationInput, OperationOutput } from "../../contract/operation.ts";
import { AppError } from "../../core/errors.ts";
import { createBusinessCheckout, createListingCheckout } from "../commerce/checkout.ts";
import { getCity, listCensusCities, listCities } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";
import { readEdition } from "../site/editions.ts";
import { getEvents } from "../site/calendar.ts";
import { getFacts } from "../places/census-dataset.ts";
import { addFeed, listFeeds, removeFeed } from "../sources/feeds.ts";
import { blockDirectorySource, listDirectoryBlocks, unblockDirectorySource } from "../directory/sources.ts";
import { verifyTown } from "../directory/verify.ts";
import { takeToken } from "../platform/limits.ts";
import { adminApproveOrder, adminListOrders, adminRejectOrder, adminReleaseOrder, adminShowOrder, getListingOrder } from "../commerce/orders.ts";
import { getOEmbed } from "../site/oembed.ts";
import { getPlace } from "../places/place-answer.ts";
import { findPlace } from "../places/places.ts";
import { getListingQuote, getPricing } from "../commerce/pricing.ts";
import { unwrap, type Reply } from "../platform/reply.ts";
import { searchArchive } from "../site/search.ts";
import { getStatus } from "../platform/status.ts";
import { subscribe } from "../readers/subscribe.ts";
import { readerSubscriptions, updateCityPreferences } from "../readers/preferences.ts";
import { handleMailWebhook } from "../readers/suppressions.ts";
import { getTerritories, operatorAction } from "../commerce/territories.ts";
import { adminEndLease, adminListLeases } from "../commerce/leases.ts";
import { getWeather } from "../weather/forecast.ts";

/** Who is calling, as the transport established it. */
export interface Caller {
  transport: "http" | "mcp" | "cli";
  /** The client address rate limits are counted by (the CLI uses "local"). */
  address: string;
  /** Whether the caller proved it is staff (HTTP: the ADMIN_TOKEN bearer; the CLI always is; MCP never). */
  admin: boolean;
}

type Result<Op extends Operation> = OperationOutput<Op> | Reply<OperationOutput<Op>>;
export type Binding<Op extends Operation> = (ctx: AppContext, input: OperationInput<Op>, caller: Caller) => Result<Op> | Promise<Result<Op>>;

/**
 * The one binding of each operation to its use case. HTTP routes (api/http/operation-router.ts), MCP
 * tools and the admin CLI all call through this table; none of them knows which service does the work.
 */
export const bindings: { [Id in OperationId]: Binding<(typeof operationsById)[Id]> } = {
  listCities: (ctx) => listCities(ctx),
  listCensusCities: (ctx, input) => listCensusCities(ctx, input),
  getCity: (ctx, { slug }) => getCity(ctx, slug),
  getFacts: (ctx, { slug }) => getFacts(ctx, slug),
  getEvents: (ctx, input) => getEvents(ctx, input),
  findPlace: (ctx, input) => findPlace(ctx, input),
  getPlace: (ctx, { slug }) => getPlace(ctx, slug),
  getArchive: (ctx, { slug, date }) => readEdition(ctx, slug, date),
  searchArchive: (ctx, input) => searchArchive(ctx, input),
  subscribe: (ctx, input) => subscribe(ctx, input),
  getReaderSubscriptions: (ctx, { token }) => readerSubscriptions(ctx, token),
  updateReaderCity: (ctx, { token, slug, ...update }) => updateCityPreferences(ctx, token, slug, update),
  getWeather: (ctx, { slug }) => getWeather(ctx, slug),
  getOEmbed: (ctx, input) => getOEmbed(ctx, input),
  getStatus: (ctx) => getStatus(ctx),
  handleMailEvents: (ctx, input) => handleMailWebhook(ctx, input),
  getPricing: (ctx) => getPricing(ctx),
  getListingQuote: (ctx, { slug }) => getListingQuote(ctx, slug),
  getTerritories: (ctx, input) => getTerritories(ctx, input),
  createListingCheckout: (ctx, input) => createListingCheckout(ctx, input),
  createBusinessCheckout: (ctx, input) => createBusinessCheckout(ctx, input),
  operatorAction: (ctx, input, caller) => operatorAction(ctx, input, caller.address),
  getListingOrder: (ctx, { id }) => getListingOrder(ctx, id),
  adminListOrders: (ctx, input) => adminListOrders(ctx, input),
  adminShowOrder: (ctx, { id }) => adminShowOrder(ctx, id),
  adminApproveOrder: (ctx, { id }, caller) => adminApproveOrder(ctx, id, { role: "staff", who: caller.transport }),
  adminRejectOrder: (ctx, { id, reason }, caller) => adminRejectOrder(ctx, id, reason, { role: "staff", who: caller.transport }),
  adminReleaseOrder: (ctx, { id }, caller) => adminReleaseOrder(ctx, id, { role: "staff", who: caller.transport }),
  adminListLeases: (ctx, input) => adminListLeases(ctx, input),
  adminEndLease: (ctx, { id }) => adminEndLease(ctx, id),
  adminAddFeed: (ctx, { slug, url }) => addFeed(ctx, slug, url, "staff"),
  adminListTownFeeds: (ctx, { slug }) => listFeeds(ctx, slug),
  adminListFeeds: (ctx, { slug }) => listFeeds(ctx, slug),
  adminRemoveFeed: (ctx, { id }) => removeFeed(ctx, id),
  adminVerifyDirectory: (ctx, { slug }) => verifyTown(ctx, slug),
  adminListDirectoryBlocks: (ctx) => listDirectoryBlocks(ctx),
  adminBlockDirectorySource: (ctx, { kind, value, reason }) => blockDirectorySource(ctx, kind, value, reason ?? null),
  adminUnblockDirectorySource: (ctx, { kind, value }) => unblockDirectorySource(ctx, kind, value),
};

/**
 * What every transport applies before reading an operation's input: staff-only operations need an
 * admin caller, and rate-limited ones take a token (before the body is read, so malformed and bot
 * requests use up the allowance too).
 */
export function admit(ctx: AppContext, op: Operation, caller: Caller): void {
  if (op.auth === "admin" && !caller.admin) throw new AppError("forbidden", `${op.operationId} is for staff only.`);
  if (op.rateLimit) takeToken(ctx.limits, op.rateLimit, caller.address);
}

/** Runs a validated input through the operation's service; the answer is always a `Reply`. */
export async function runOperation(ctx: AppContext, op: Operation, input: object, caller: Caller): Promise<Reply<unknown>> {
  const binding = bindings[op.operationId as OperationId] as Binding<Operation> | undefined;
  if (!binding) throw new Error(`operation ${op.operationId} has no binding`);
  return unwrap(await binding(ctx, input as never, caller));
}
