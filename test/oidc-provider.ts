/**
 * A real OpenID Connect provider on loopback for tests (not a test file itself): panva's oidc-provider
 * with one client for CallProof, its development login page (any login, the account id is what is
 * typed) and consent given in advance. `accounts` holds each login's claims; `tamperNextIdToken` changes
 * the next ID token the token endpoint answers, re-signed with the provider's own key or not at all.
 */

/// <reference path="./oidc-provider-types.d.ts" />
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as jose from "jose";
import Provider, { type ProviderContext } from "oidc-provider";

export type IdpClaims = Record<string, unknown>;

type Tamper = { change: (claims: IdpClaims) => IdpClaims; resign: boolean };

export class TestIdp {
  readonly accounts = new Map<string, IdpClaims>();
  readonly clientId = "callproof";
  readonly clientSecret = randomBytes(24).toString("base64url");
  issuer = "";
  private server: Server | null = null;
  private key: jose.JWK | null = null;
  private tamper: Tamper | null = null;

  /** Starts the provider; `redirectUri` is CallProof's callback (PUBLIC_URL/api/auth/sso/callback). */
  async start(redirectUri: string, opts: { extraRedirectUris?: string[]; claimsOnlyInUserInfo?: boolean } = {}) {
    const { privateKey } = await jose.generateKeyPair("RS256", { extractable: true });
    this.key = { ...(await jose.exportJWK(privateKey)), kid: "test-key-1", alg: "RS256", use: "sig" };
    this.server = createServer();
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const accounts = this.accounts;
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: this.clientId,
          client_secret: this.clientSecret,
          redirect_uris: [redirectUri, ...(opts.extraRedirectUris ?? [])],
          response_types: ["code"],
          grant_types: ["authorization_code"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
      jwks: { keys: [this.key] },
      findAccount: async (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: async () => ({ sub: id, ...(accounts.get(id) ?? {}) }),
      }),
      claims: {
        openid: ["sub"],
        email: ["email", "email_verified", "xms_edov"],
        profile: ["name", "given_name", "family_name", "preferred_username", "upn"],
      },
      // Like Entra ID, Google and Keycloak: the scope's claims are in the ID token itself (unless told
      // otherwise: then, as OpenID Connect Core puts it, only in the UserInfo answer).
      conformIdTokenClaims: opts.claimsOnlyInUserInfo === true,
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ["test-idp-cookie-key-0123456789"] },
      ttl: { AccessToken: 600, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
      // Consent given in advance, as for an application an administrator registered for the organisation.
      async loadExistingGrant(ctx: ProviderContext) {
        const existing = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
        if (existing) return ctx.oidc.provider.Grant.find(existing);
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client.clientId,
          accountId: ctx.oidc.session.accountId,
        });
        grant.addOIDCScope("openid email profile");
        await grant.save();
        return grant;
      },
    });
    provider.use(async (ctx, next) => {
      await next();
      const tamper = this.tamper;
      const answer = ctx.body as { id_token?: string } | undefined;
      if (tamper && ctx.path === "/token" && ctx.method === "POST" && answer?.id_token) {
        this.tamper = null;
        ctx.body = { ...answer, id_token: await this.forge(answer.id_token, tamper) };
      }
    });
    this.server.on("request", provider.callback());
    return this;
  }

  /** The next ID token answered: `change` applied to its claims, re-signed with the provider's key (or not). */
  tamperNextIdToken(change: (claims: IdpClaims) => IdpClaims, opts: { resign: boolean } = { resign: true }) {
    this.tamper = { change, resign: opts.resign };
  }

  private async forge(idToken: string, tamper: Tamper): Promise<string> {
    const claims = tamper.change(jose.decodeJwt(idToken) as IdpClaims);
    if (!tamper.resign) {
      const [header, , signature] = idToken.split(".");
      return `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
    }
    const key = await jose.importJWK(this.key as jose.JWK, "RS256");
    return new jose.SignJWT(claims as jose.JWTPayload)
      .setProtectedHeader({ alg: "RS256", kid: (this.key as jose.JWK).kid as string, typ: "JWT" })
      .sign(key);
  }

  async stop() {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }
}

/**
 * Signs in at the provider as a browser would: follows its redirects, posts its login form with `login`,
 * and returns the URL it finally sends the browser to (CallProof's callback), without following that.
 */
export async function signInAtIdp(authorizationUrl: string, login: string, opts: { redirectUri: string }) {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  let url = authorizationUrl;
  let method = "GET";
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(opts.redirectUri)) return new URL(url);
    const res = await fetch(url, { method, body, redirect: "manual", headers: { cookie: cookie() } });
    remember(res);
    method = "GET";
    body = undefined;
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url).href;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 300)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, "&"), url).href;
    method = "POST";
    body = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt });
  }
  throw new Error("too many redirects at the provider");
}
