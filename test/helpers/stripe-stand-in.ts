import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the stand-in received it: the form body flattened as Stripe's SDK encodes it. */
export interface StandInRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  form: URLSearchParams;
}

/**
 * A local HTTP stand-in for the parts of Stripe's API citydaily calls (Stripe itself cannot be reached
 * from tests): creating Checkout Sessions, retrieving a PaymentIntent with its charge's balance
 * transaction, and for operators' payouts Connect Express accounts, account links, transfers (with
 * `source_transaction`) and transfer reversals, retrieving a subscription and opening a billing
 * portal session, listing the events it recorded (`report`) since a time; answered in Stripe's response format (objects, ids, error envelope). It keeps every
 * request for assertions, replays the first answer for a repeated Idempotency-Key as Stripe does, and
 * can be told to fail. The stripe SDK is pointed at it with its `host`, `port` and `protocol` options.
 */
export class StripeStandIn {
  requests: StandInRequest[] = [];
  /** The fee the stand-in reports on every charge's balance transaction, in cents. */
  fee = 111;
  /** While set, every request answers this HTTP status with a Stripe api_error. */
  failWith: number | undefined;
  #server: http.Server | undefined;
  #idempotent = new Map<string, string>();
  #sessions = new Map<string, Record<string, unknown>>();
  #accounts = new Map<string, Record<string, any>>();
  #transfers = new Map<string, Record<string, any>>();
  url = "";
  /** Events Stripe recorded (`report`), which `GET /v1/events` lists newest first, as Stripe does. */
  events: Array<Record<string, any>> = [];

  /** Stripe records an event (and would send its webhook): `created` defaults to now, in seconds. */
  report(event: Record<string, any>): Record<string, any> {
    const recorded = { ...event, created: event.created || Math.floor(Date.now() / 1000) };
    this.events.push(recorded);
    return recorded;
  }

  accounts(): Array<Record<string, any>> {
    return [...this.#accounts.values()];
  }

  transfers(): Array<Record<string, any>> {
    return [...this.#transfers.values()];
  }

  /** What the operator does on Stripe's onboarding pages: the account can now receive transfers and payouts. */
  completeOnboarding(id: string): void {
    const a = this.#accounts.get(id);
    if (!a) throw new Error(`no account ${id}`);
    Object.assign(a, { details_submitted: true, payouts_enabled: true, charges_enabled: true, capabilities: { transfers: "active" } });
  }

  /** Transfers less reversals per destination account, in cents. */
  netTransferred(account: string): number {
    return this.transfers().filter((t) => t.destination === account).reduce((s, t) => s + t.amount - t.amount_reversed, 0);
  }

  async start(): Promise<this> {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => this.#handle(req, Buffer.concat(chunks).toString("utf8"), res));
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }

  sessions(): Array<Record<string, unknown>> {
    return [...this.#sessions.values()];
  }

  #send(res: http.ServerResponse, status: number, body: unknown, requestId = `req_${crypto.randomBytes(7).toString("hex")}`) {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "Content-Type": "application/json", "Request-Id": requestId, "Stripe-Version": "2026-10-28.endive" });
    res.end(text);
  }

  #handle(req: http.IncomingMessage, body: string, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const record: StandInRequest = { method: req.method ?? "GET", path: url.pathname, query: url.searchParams, headers: req.headers, form: new URLSearchParams(body) };
    this.requests.push(record);
    if (!/^Bearer sk_test_/.test(String(req.headers.authorization))) {
      return this.#send(res, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
    }
    if (this.failWith) return this.#send(res, this.failWith, { error: { type: "api_error", message: "Stand-in told to fail" } });
    const key = req.headers["idempotency-key"];
    if (typeof key === "string" && this.#idempotent.has(key)) return this.#send(res, 200, this.#idempotent.get(key)!);

    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const f = record.form;
      const id = `cs_test_${crypto.randomBytes(12).toString("hex")}`;
      const metadata: Record<string, string> = {};
      for (const [k, v] of f) { const m = /^metadata\[(\w+)\]$/.exec(k); if (m) metadata[m[1]] = v; }
      const amount = Number(f.get("line_items[0][price_data][unit_amount]")) * Number(f.get("line_items[0][quantity]") ?? 1);
      const session = {
        id, object: "checkout.session", mode: f.get("mode"), status: "open", payment_status: "unpaid", livemode: false,
        amount_subtotal: amount, amount_total: amount, currency: f.get("line_items[0][price_data][currency]"),
        client_reference_id: f.get("client_reference_id"), customer: null, customer_email: f.get("customer_email"), customer_details: null,
        metadata, success_url: f.get("success_url"), cancel_url: f.get("cancel_url"), created: Math.floor(Date.now() / 1000),
        expires_at: Number(f.get("expires_at")), payment_intent: null, subscription: null, url: `https://checkout.stripe.com/c/pay/${id}#stand-in`,
      };
      this.#sessions.set(id, session);
      const text = JSON.stringify(session);
      if (typeof key === "string") this.#idempotent.set(key, text);
      return this.#send(res, 200, text);
    }
    const f = record.form;
    const remember = (body: unknown) => {
      const text = JSON.stringify(body);
      if (typeof key === "string") this.#idempotent.set(key, text);
      return this.#send(res, 200, text);
    };
    const invalid = (message: string, param?: string) => this.#send(res, 400, { error: { type: "invalid_request_error", message, ...(param ? { param } : {}) } });
    const created = Math.floor(Date.now() / 1000);
    if (req.method === "POST" && url.pathname === "/v1/accounts") {
      if (f.get("type") !== "express") return invalid("Only Express accounts are expected here", "type");
      const id = `acct_${crypto.randomBytes(8).toString("hex")}`;
      const account = {
        id, object: "account", type: "express", email: f.get("email"), country: f.get("country") ?? "US", created,
        details_submitted: false, payouts_enabled: false, charges_enabled: false,
        capabilities: { transfers: f.get("capabilities[transfers][requested]") === "true" ? "inactive" : undefined },
        business_profile: { product_description: f.get("business_profile[product_description]") }, metadata: {},
      };
      this.#accounts.set(id, account);
      return remember(account);
    }
    const acct = /^\/v1\/accounts\/(acct_\w+)$/.exec(url.pathname);
    if (req.method === "GET" && acct) {
      const a = this.#accounts.get(acct[1]);
      return a ? this.#send(res, 200, a) : this.#send(res, 404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such account: '${acct[1]}'`, param: "account" } });
    }
    if (req.method === "POST" && url.pathname === "/v1/account_links") {
      const account = f.get("account") ?? "";
      if (!this.#accounts.has(account)) return invalid(`No such account: '${account}'`, "account");
      if (!f.get("refresh_url") || !f.get("return_url") || f.get("type") !== "account_onboarding") return invalid("Missing required param: refresh_url, return_url or type.");
      return remember({ object: "account_link", created, expires_at: created + 300, url: `https://connect.stripe.com/setup/e/${account}/${crypto.randomBytes(9).toString("base64url")}` });
    }
    if (req.method === "POST" && url.pathname === "/v1/transfers") {
      const destination = f.get("destination") ?? "";
      const a = this.#accounts.get(destination);
      if (!a) return invalid(`No such destination: '${destination}'`, "destination");
      if (a.capabilities?.transfers !== "active") {
        return invalid("Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments", "destination");
      }
      const id = `tr_${crypto.randomBytes(12).toString("hex")}`;
      const metadata: Record<string, string> = {};
      for (const [k, v] of f) { const m = /^metadata\[(\w+)\]$/.exec(k); if (m) metadata[m[1]] = v; }
      const transfer = {
        id, object: "transfer", amount: Number(f.get("amount")), amount_reversed: 0, currency: f.get("currency"), created, destination,
        destination_payment: `py_${crypto.randomBytes(8).toString("hex")}`, livemode: false, metadata, reversed: false,
        reversals: { object: "list", data: [] as unknown[], has_more: false, total_count: 0, url: `/v1/transfers/${id}/reversals` },
        source_transaction: f.get("source_transaction"), source_type: "card", transfer_group: f.get("transfer_group"),
      };
      this.#transfers.set(id, transfer);
      return remember(transfer);
    }
    const rev = /^\/v1\/transfers\/(tr_\w+)\/reversals$/.exec(url.pathname);
    if (req.method === "POST" && rev) {
      const t = this.#transfers.get(rev[1]);
      if (!t) return this.#send(res, 404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such transfer: '${rev[1]}'`, param: "id" } });
      const amount = f.has("amount") ? Number(f.get("amount")) : t.amount - t.amount_reversed;
      if (amount > t.amount - t.amount_reversed) return invalid(`Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on transfer ($${((t.amount - t.amount_reversed) / 100).toFixed(2)})`, "amount");
      const metadata: Record<string, string> = {};
      for (const [k, v] of f) { const m = /^metadata\[(\w+)\]$/.exec(k); if (m) metadata[m[1]] = v; }
      const reversal = { id: `trr_${crypto.randomBytes(12).toString("hex")}`, object: "transfer_reversal", amount, currency: t.currency, created, metadata, transfer: t.id, destination_payment_refund: null, source_refund: null };
      t.amount_reversed += amount;
      t.reversed = t.amount_reversed === t.amount;
      t.reversals.data.push(reversal);
      t.reversals.total_count++;
      return remember(reversal);
    }
    const sub = /^\/v1\/subscriptions\/(sub_\w+)$/.exec(url.pathname);
    if (req.method === "GET" && sub) {
      return this.#send(res, 200, { id: sub[1], object: "subscription", customer: `cus_${sub[1].slice(4, 18)}`, status: "active", cancel_at_period_end: false, items: { object: "list", data: [] } });
    }
    if (req.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
      const customer = f.get("customer");
      if (!customer) return invalid("Missing required param: customer.", "customer");
      const id = `bps_${crypto.randomBytes(12).toString("hex")}`;
      return remember({ id, object: "billing_portal.session", customer, created, livemode: false, return_url: f.get("return_url"), url: `https://billing.stripe.com/p/session/test_${id}` });
    }
    const pi = /^\/v1\/payment_intents\/(pi_\w+)$/.exec(url.pathname);
    if (req.method === "GET" && pi) {
      const expanded = url.searchParams.getAll("expand[]").includes("latest_charge.balance_transaction") || url.searchParams.getAll("expand[0]").includes("latest_charge.balance_transaction");
      const txn = { id: `txn_${pi[1].slice(3)}`, object: "balance_transaction", amount: 2500, fee: this.fee, net: 2500 - this.fee, currency: "usd" };
      const charge = { id: `ch_${pi[1].slice(3)}`, object: "charge", amount: 2500, payment_intent: pi[1], balance_transaction: expanded ? txn : txn.id };
      return this.#send(res, 200, { id: pi[1], object: "payment_intent", amount: 2500, currency: "usd", status: "succeeded", latest_charge: expanded ? charge : charge.id });
    }
    if (req.method === "GET" && url.pathname === "/v1/events") {
      // Newest first; `created[gte|gt|lte|lt]`, `limit` (default 10, at most 100) and `starting_after`, as Stripe pages.
      const q = url.searchParams;
      const bound = (op: string) => (q.has(`created[${op}]`) ? Number(q.get(`created[${op}]`)) : undefined);
      const [gte, gt, lte, lt] = ["gte", "gt", "lte", "lt"].map(bound);
      let list = this.events.map((e, i) => ({ e, i })).sort((a, b) => b.e.created - a.e.created || b.i - a.i).map(({ e }) => e)
        .filter((e) => (gte === undefined || e.created >= gte) && (gt === undefined || e.created > gt) && (lte === undefined || e.created <= lte) && (lt === undefined || e.created < lt));
      const after = q.get("starting_after");
      if (after) list = list.slice(list.findIndex((e) => e.id === after) + 1);
      const limit = Math.min(100, Number(q.get("limit") ?? 10));
      return this.#send(res, 200, { object: "list", url: "/v1/events", has_more: list.length > limit, data: list.slice(0, limit) });
    }
    return this.#send(res, 404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname}).` } });
  }
}
