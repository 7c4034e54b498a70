import type { Adapter, AdapterPayload } from "oidc-provider";
import {
  clientOfGrant, consumeModel, destroyByGrant, destroyModel, findModel, findModelByUid, keepClientAfterGrants, pruneExpired, upsertModel, type OAuthRow,
} from "../../store/oauth/models.ts";
import type { AppContext } from "../platform/context.ts";
import { clientByMetadataDocument, type DocumentFetcher } from "./client-documents.ts";
import { CLIENT_AFTER_GRANTS_SECONDS, UNUSED_CLIENT_SECONDS } from "./retention.ts";

// oidc-provider's storage, in the project's SQLite (src/store/oauth/models.ts): one class per app,
// one instance per model. Expiry is oidc-provider's own clock (epoch seconds of the real time),
// which it also writes into every payload's `exp`.

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Removes a grant (and, with `withTokens`, its tokens and codes); its client's deadline follows. */
export function destroyGrant(ctx: AppContext, grantId: string, withTokens: boolean): void {
  ctx.db.transaction(() => {
    const clientId = clientOfGrant(ctx.db, grantId);
    if (withTokens) destroyByGrant(ctx.db, grantId);
    destroyModel(ctx.db, "Grant", grantId);
    if (clientId) keepClientAfterGrants(ctx.db, clientId, nowSeconds(), CLIENT_AFTER_GRANTS_SECONDS);
  }).immediate();
}

function payloadOf(row: OAuthRow | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
}

/** The adapter class for this app: clients that are not registered are resolved from their metadata document. */
export function sqliteAdapter(ctx: AppContext, documents: DocumentFetcher): new (name: string) => Adapter {
  return class SqliteAdapter implements Adapter {
    readonly name: string;
    constructor(name: string) {
      this.name = name;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const now = nowSeconds();
      // A few expired rows go with each sign-in and each registration, so the table holds what is
      // live (plus a day's interactions and registrations at most).
      if (this.name === "Interaction" || this.name === "Client") pruneExpired(ctx.db, now);
      // oidc-provider writes a Client only when one registers (metadata documents are kept apart, client-documents.ts).
      const expiresAt = this.name === "Client" ? now + UNUSED_CLIENT_SECONDS : expiresIn ? now + expiresIn : null;
      upsertModel(ctx.db, {
        model: this.name, id, payload: JSON.stringify(payload),
        grantId: typeof payload.grantId === "string" ? payload.grantId : null,
        uid: typeof payload.uid === "string" ? payload.uid : null,
        accountId: this.name === "Grant" && typeof payload.accountId === "string" ? payload.accountId : null,
        expiresAt,
      });
      if (this.name === "Grant" && typeof payload.clientId === "string") keepClientAfterGrants(ctx.db, payload.clientId, now, CLIENT_AFTER_GRANTS_SECONDS);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const found = payloadOf(findModel(ctx.db, this.name, id, nowSeconds()));
      if (found || this.name !== "Client") return found;
      return clientByMetadataDocument(ctx, documents, id);
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
      if (this.name === "Grant") destroyGrant(ctx, id, false);
      else destroyModel(ctx.db, this.name, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      destroyByGrant(ctx.db, grantId);
    }
  };
}
