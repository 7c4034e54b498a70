import type { Config } from "../../config/load.ts";
import { isHttpsOrigin } from "../../config/security.ts";
import { AppError } from "../../core/errors.ts";
import type { DB } from "../../store/db.ts";
import { createLocalProvider } from "./local.ts";
import { createStripeProvider } from "./stripe.ts";
import type { PaymentProvider } from "./types.ts";

export type { PaymentEvent, PaymentProvider } from "./types.ts";

/**
 * Why purchases are off, or undefined when they are on: Stripe when STRIPE_SECRET_KEY is set; the
 * local checkout (whose Pay button charges nothing) on an http BASE_URL, which is development, or
 * on an https one only when LOCAL_CHECKOUT=on says so. A deployment never falls back to it silently.
 */
export function purchasesOffReason(config: Config): string | undefined {
  if (config.stripeSecretKey || config.security.localCheckout || !isHttpsOrigin(config.baseUrl)) return undefined;
  return "STRIPE_SECRET_KEY is not set and BASE_URL is https; set STRIPE_SECRET_KEY (and STRIPE_WEBHOOK_SECRET) to take payments, or LOCAL_CHECKOUT=on to use the local checkout, which charges nothing";
}

/** No provider: every purchase and callback answers 503 `service_misconfigured` naming what is missing. */
function purchasesOff(reason: string): PaymentProvider {
  const off = () => new AppError("service_misconfigured", `Purchases are off: ${reason}.`);
  return {
    name: "off",
    checkoutOrigins: [],
    createCheckout: () => Promise.reject(off()),
    verifyCallback: () => Promise.reject(off()),
  };
}

/** Stripe when STRIPE_SECRET_KEY is set, otherwise the local hosted checkout where allowed (above), otherwise none. */
export function createPaymentProvider(config: Config, db: DB, storedSecret: (name: string) => string): PaymentProvider {
  if (config.stripeSecretKey) {
    return createStripeProvider({ secretKey: config.stripeSecretKey, webhookSecret: config.stripeWebhookSecret, connectWebhookSecret: config.stripeConnectWebhookSecret, apiUrl: config.stripeApiUrl, now: () => config.now() });
  }
  const off = purchasesOffReason(config);
  if (off) return purchasesOff(off);
  return createLocalProvider({ db, baseUrl: () => config.baseUrl, secret: () => storedSecret("local_payments_webhook_secret"), now: () => config.now() });
}
