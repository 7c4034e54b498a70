import { cachedStatement as stmt, type DB } from "../db.ts";

// Who decided what on a listing (table listing_decisions): staff or the town's operator.

export interface Decider {
  role: "staff" | "operator";
  /** The operator's email, or the staff channel (`cli`, `http`). */
  who: string;
}

export interface DecisionRow {
  decision: "approved" | "released" | "rejected";
  reason: string | null;
  byRole: Decider["role"];
  byWho: string;
  createdAt: string;
}

export function recordDecision(db: DB, orderId: string, decision: DecisionRow["decision"], reason: string | null, by: Decider, nowIso: string): void {
  stmt(db, "INSERT INTO listing_decisions (order_id, decision, reason, by_role, by_who, created_at) VALUES (?, ?, ?, ?, ?, ?)")
    .run(orderId, decision, reason, by.role, by.who, nowIso);
}

export function decisionsOf(db: DB, orderId: string): DecisionRow[] {
  return stmt(db, `SELECT decision, reason, by_role AS byRole, by_who AS byWho, created_at AS createdAt
    FROM listing_decisions WHERE order_id = ? ORDER BY id`).all(orderId) as DecisionRow[];
}
