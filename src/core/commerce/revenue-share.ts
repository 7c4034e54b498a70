import { operatorShareCents } from "./pricing.ts";

/** One ledger line, as the operator's statement shows it. Integer cents. */
export interface LedgerLine {
  kind: "share" | "reversal";
  grossCents: number;
  feeCents: number;
  amountCents: number;
}

/** The operator's share of a paid listing (half the net of the fee) and its reversal on refund. */
export function shareEntry(grossCents: number, feeCents: number): LedgerLine {
  return { kind: "share", grossCents, feeCents, amountCents: operatorShareCents(grossCents, feeCents) };
}

export function reversalOf(share: LedgerLine): LedgerLine {
  return { kind: "reversal", grossCents: -share.grossCents, feeCents: -share.feeCents, amountCents: -share.amountCents };
}

/** Statement totals: what was sold, the fees, and the operator's balance. */
export function statementTotals(lines: ReadonlyArray<LedgerLine>): { grossCents: number; feeCents: number; balanceCents: number; entries: number } {
  let grossCents = 0, feeCents = 0, balanceCents = 0;
  for (const l of lines) {
    grossCents += l.grossCents;
    feeCents += l.feeCents;
    balanceCents += l.amountCents;
  }
  return { grossCents, feeCents, balanceCents, entries: lines.length };
}
