import { statementTotals } from "../core/revenue-share.ts";
import { signLink, verifyLink } from "../core/signed-links.ts";
import { leasesOfOperator, type LeaseView } from "../store/leases.ts";
import { ledgerOfOperator, type LedgerRow } from "../store/ledger.ts";
import type { AppContext } from "./context.ts";

const PURPOSE = "citydaily-operator-v1";
const secret = (ctx: AppContext) => ctx.secrets.stored("operator_link_secret");

/** The operator's own page, signed over their account email (no password: the link is the key). */
export function operatorPageUrl(ctx: AppContext, email: string): string {
  return `${ctx.config.baseUrl}/operator/${signLink(secret(ctx), PURPOSE, email.toLowerCase())}`;
}

export interface OperatorView {
  email: string;
  leases: LeaseView[];
  ledger: LedgerRow[];
  totals: ReturnType<typeof statementTotals>;
}

export function operatorView(ctx: AppContext, token: string): OperatorView | undefined {
  const email = verifyLink(secret(ctx), PURPOSE, token);
  if (!email) return undefined;
  const ledger = ledgerOfOperator(ctx.db, email);
  return { email, leases: leasesOfOperator(ctx.db, email), ledger, totals: statementTotals(ledger) };
}
