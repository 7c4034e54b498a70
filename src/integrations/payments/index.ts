import type { Config } from "../../config/load.ts";
import type { DB } from "../../store/db.ts";
import { createLocalProvider } from "./local.ts";
import { createStripeProvider } from "./stripe.ts";
import type { PaymentProvider } from "./types.ts";

export type { PaymentEvent, PaymentProvider } from "./types.ts";

/** Stripe when STRIPE_SECRET_KEY is set, otherwise the local hosted checkout (no account needed). */
export function createPaymentProvider(config: Config, db: DB, storedSecret: (name: string) => string): PaymentProvider {
  if (config.stripeSecretKey) {
    return createStripeProvider({ secretKey: config.stripeSecretKey, webhookSecret: config.stripeWebhookSecret, connectWebhookSecret: config.stripeConnectWebhookSecret, apiUrl: config.stripeApiUrl, now: () => config.now() });
  }
  return createLocalProvider({ db, baseUrl: () => config.baseUrl, secret: () => storedSecret("local_payments_webhook_secret"), now: () => config.now() });
}
