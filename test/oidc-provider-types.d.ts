/** The little of oidc-provider (shipped without types) that test/oidc-provider.ts uses. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export type ProviderContext = {
    path: string;
    method: string;
    body: unknown;
    oidc: {
      result?: { consent?: { grantId?: string } };
      session: { accountId: string; grantIdFor(clientId: string): string | undefined };
      client: { clientId: string };
      provider: { Grant: GrantClass };
    };
  };

  export type Grant = { addOIDCScope(scope: string): void; save(): Promise<string> };
  export type GrantClass = {
    new (init: { clientId: string; accountId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };

  export default class Provider {
    constructor(issuer: string, configuration: object);
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
