import type { Adapter, AdapterPayload } from "oidc-provider";
import { consumeModel, destroyByGrant, destroyModel, findModel, findModelByUid, pruneExpired, upsertModel, type OAuthRow } from "../../store/oauth/models.ts";
import type { AppContext } from "../platform/context.ts";
import { clientByMetadataDocument } from "./client-documents.ts";

// oidc-provider's storage, in the project's SQLite (src/store/oauth/models.ts): one class per app,
// one instance per model. Expiry is oidc-provider's own clock (epoch seconds of the real time),
// which it also writes into every payload's `exp`.

const nowSeconds = () => Math.floor(Date.now() / 1000);

function payloadOf(row: OAuthRow | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
}

/** The adapter class for this app: clients that are not registered are resolved from their metadata document. */
export function sqliteAdapter(ctx: AppContext): new (name: string) => Adapter {
  return class SqliteAdapter implements Adapter {
    readonly name: string;
    constructor(name: string) {
      this.name = name;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const now = nowSeconds();
      // A few expired rows go with each write, so the table holds what is live (plus a day's interactions at most).
      if (this.name === "Interaction") pruneExpired(ctx.db, now);
      upsertModel(ctx.db, {
        model: this.name, id, payload: JSON.stringify(payload),
        grantId: typeof payload.grantId === "string" ? payload.grantId : null,
        uid: typeof payload.uid === "string" ? payload.uid : null,
        accountId: this.name === "Grant" && typeof payload.accountId === "string" ? payload.accountId : null,
        expiresAt: expiresIn ? now + expiresIn : null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const found = payloadOf(findModel(ctx.db, this.name, id, nowSeconds()));
      if (found || this.name !== "Client") return found;
      return clientByMetadataDocument(ctx, id);
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      return undefined; // no device flow
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(findModelByUid(ctx.db, this.name, uid, nowSeconds()));
    }

    async consume(id: string): Promise<void> {
      consumeModel(ctx.db, this.name, id, nowSeconds());
    }

    async destroy(id: string): Promise<void> {
      destroyModel(ctx.db, this.name, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      destroyByGrant(ctx.db, grantId);
    }
  };
}
