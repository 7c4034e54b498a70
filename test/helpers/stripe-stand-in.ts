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
 * from tests): creating Checkout Sessions and retrieving a PaymentIntent with its charge's balance
 * transaction, answered in Stripe's response format (objects, ids, error envelope). It keeps every
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
  url = "";

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
    const pi = /^\/v1\/payment_intents\/(pi_\w+)$/.exec(url.pathname);
    if (req.method === "GET" && pi) {
      const expanded = url.searchParams.getAll("expand[]").includes("latest_charge.balance_transaction") || url.searchParams.getAll("expand[0]").includes("latest_charge.balance_transaction");
      const txn = { id: `txn_${pi[1].slice(3)}`, object: "balance_transaction", amount: 2500, fee: this.fee, net: 2500 - this.fee, currency: "usd" };
      const charge = { id: `ch_${pi[1].slice(3)}`, object: "charge", amount: 2500, payment_intent: pi[1], balance_transaction: expanded ? txn : txn.id };
      return this.#send(res, 200, { id: pi[1], object: "payment_intent", amount: 2500, currency: "usd", status: "succeeded", latest_charge: expanded ? charge : charge.id });
    }
    return this.#send(res, 404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname}).` } });
  }
}
