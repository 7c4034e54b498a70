// oidc-provider ships no types (DefinitelyTyped's lag a major version): the part of its API the
// authorization server uses (src/services/oauth/provider.ts), as its documentation describes it.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface AdapterPayload { [key: string]: unknown }
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id: string; redirect_uri?: string; scope?: string; resource?: string | string[] };
    session?: { accountId?: string };
    grantId?: string;
    lastSubmission?: Record<string, unknown>;
  }

  export interface ClientInstance {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
    metadata(): Record<string, unknown>;
  }

  export interface GrantInstance {
    jti?: string;
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
    destroy(): Promise<void>;
  }

  export interface AccessTokenInstance {
    jti: string;
    accountId: string;
    clientId: string;
    grantId: string;
    scope?: string;
    aud?: string | string[];
    isExpired: boolean;
  }

  /** Koa's context of a request, as far as the project reads it. */
  export interface KoaContext {
    req: IncomingMessage;
    request: object;
    status: number;
    oidc?: { route?: string };
    set(name: string, value: string): void;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    /** The context of the request being answered (oidc-provider's AsyncLocalStorage), if any. */
    static readonly ctx: KoaContext | undefined;
    proxy: boolean;
    /** Adds a Koa middleware in front of oidc-provider's own. */
    use(middleware: (koa: KoaContext, next: () => Promise<void>) => Promise<void>): this;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    Client: { find(id: string): Promise<ClientInstance | undefined> };
    Grant: (new (props: { accountId: string; clientId: string }) => GrantInstance) & { find(id: string): Promise<GrantInstance | undefined> };
    AccessToken: { find(value: string): Promise<AccessTokenInstance | undefined> };
  }

  export const errors: Record<string, new (description?: string) => Error> & {
    /** An OAuth error of any code (`error`) and description; status 400 unless changed. */
    CustomOIDCProviderError: new (error: string, description: string) => Error & { status: number; statusCode: number; allow_redirect: boolean };
  };
}
