/**
 * The listing order's life (documented in the contract and the README):
 *
 *   paid tiers:  pending_payment -> paid -> published -> ended
 *                pending_payment -> expired            (the payment link ran out unpaid)
 *   held:        held -> pending_payment               (a person released it: a payment link is issued)
 *                held -> published                     (a person released a held free listing)
 *                held -> rejected                      (a person rejected it)
 *   free tier:   awaiting_review -> published | rejected
 *   refunds:     paid | published | ended -> refunded  (unpublished, the operator's share reversed)
 *   rejected by the screen: created directly as `rejected`.
 *
 * `paid` is a step of one transaction in practice: the callback records the payment and publishes.
 */
export const ORDER_STATUSES = ["awaiting_review", "held", "pending_payment", "paid", "published", "rejected", "expired", "ended", "refunded"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const TRANSITIONS: Readonly<Record<OrderStatus, ReadonlyArray<OrderStatus>>> = {
  awaiting_review: ["published", "rejected"],
  held: ["pending_payment", "published", "rejected"],
  pending_payment: ["paid", "expired"],
  paid: ["published", "refunded"],
  published: ["ended", "refunded"],
  ended: ["refunded"],
  rejected: [],
  expired: [],
  refunded: [],
};

export const STATUS_MEANING: Readonly<Record<OrderStatus, string>> = {
  awaiting_review: "free listing waiting for a person's approval",
  held: "the screen asked for a person's look before a payment link is issued",
  pending_payment: "a payment link is open (`checkoutUrl`) until `checkoutExpiresAt`",
  paid: "payment confirmed; publication follows in the same step",
  published: "live on the town's calendar or directory",
  rejected: "refused by the screen or by a person (`rejected.rule`, `rejected.reason`); never charged",
  expired: "the payment link ran out unpaid",
  ended: "the event is over or the business listing's 30 days have run",
  refunded: "the payment was refunded; the listing is unpublished and the operator's share reversed",
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Statuses in which the order's listing is shown to readers. */
export const isPublished = (s: OrderStatus) => s === "published";

/** Markdown list of every status and transition, for the contract's description. */
export function statusDocumentation(): string {
  const lines = ORDER_STATUSES.map((s) => `- \`${s}\`: ${STATUS_MEANING[s]}${TRANSITIONS[s].length ? ` (next: ${TRANSITIONS[s].map((t) => `\`${t}\``).join(", ")})` : " (final)"}`);
  return [
    "Statuses and transitions: `pending_payment -> paid -> published -> ended`; `pending_payment -> expired`; `held -> pending_payment | rejected` (a released free listing: `held -> published`); `awaiting_review -> published | rejected`; `paid | published | ended -> refunded`. A screen rejection is created `rejected`.",
    "",
    ...lines,
  ].join("\n");
}
