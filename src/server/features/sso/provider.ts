import type { Deps } from "@server/context";
import { OUTBOUND_TEXT, OutboundError, outboundFetch } from "@server/lib/outbound";
import type { SsoFailureReason } from "@shared/sso";
import { SSO_TEXT } from "@shared/sso";
import * as oidc from "openid-client";

/**
 * The relying party's side of talking to an identity provider, through openid-client (v6): discovery,
 * the token request and every key fetch go through the one outbound path (OUTBOUND_ALLOWED_HOSTS), and
 * every ID token is checked by the library (signature by the issuer's keys, iss, aud, exp, nonce).
 */

export type ProviderConnection = { issuer: string; clientId: string; clientSecret: string };

/**
 * openid-client's fetch, through lib/outbound.ts: the policy's checks, pinned addresses, no redirects, and
 * the webhooks' port rule (443 or 80 unless the operator allows the host), for the issuer and for every
 * endpoint its discovery document names.
 */
function providerFetch(deps: Deps): oidc.CustomFetch {
  return (url, options) =>
    outboundFetch(deps.config.outbound, url, {
      method: options.method,
      headers: options.headers as HeadersInit,
      body: (options.body ?? null) as string | URLSearchParams | null,
      signal: options.signal,
      redirect: "manual",
      standardPortsOnly: true,
    });
}

/** Seconds the app's clock is ahead of the system's: the library checks `exp` against the app's time. */
const skewSeconds = (deps: Deps) => Math.round((deps.clock.now().getTime() - Date.now()) / 1000);

type Cached = { config: oidc.Configuration; at: number };
/** Discovered configurations for a few minutes (their key sets with them): a cache, not state that matters. */
const cache = new Map<string, Cached>();
const CACHE_MS = 5 * 60_000;

/**
 * The client configuration for a connection: the issuer's discovery document, fetched and checked
 * (the document's issuer must be exactly the configured one). http is allowed only where the outbound
 * policy allows it (loopback issuers in tests); the outbound path refuses it everywhere else.
 */
export async function providerConfig(deps: Deps, connection: ProviderConnection, fresh = false) {
  const skew = skewSeconds(deps);
  const key = [connection.issuer, connection.clientId, connection.clientSecret, skew].join("\0");
  const hit = cache.get(key);
  if (!fresh && hit && Date.now() - hit.at < CACHE_MS) return hit.config;
  const insecure = new URL(connection.issuer).protocol === "http:";
  const config = await oidc.discovery(
    new URL(connection.issuer),
    connection.clientId,
    { client_secret: connection.clientSecret, [oidc.clockSkew]: skew },
    oidc.ClientSecretBasic(connection.clientSecret),
    {
      [oidc.customFetch]: providerFetch(deps),
      timeout: 10,
      // ID tokens from the token endpoint are checked against the issuer's keys too (not only TLS).
      execute: insecure
        ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks]
        : [oidc.enableNonRepudiationChecks],
    },
  );
  if (cache.size > 500) cache.clear();
  cache.set(key, { config, at: Date.now() });
  return config;
}

/** The outbound refusal somewhere in an error's causes, if any. */
function outboundCause(err: unknown): OutboundError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof OutboundError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The step of the discovery that an outbound failure names (shown to the organisation): the URL's own
 * rules, the name look-up, the address rule, or fetching the document. Never which of "could not connect"
 * and "timed out" (that tells a closed port from a filtered one), a status or the answer's content.
 */
function unreachableStep(outbound: OutboundError): string {
  switch (outbound.step) {
    case "url":
    case "resolve":
    case "address":
      return outbound.message;
    default:
      return SSO_TEXT.fetchStep;
  }
}

/** An abort by openid-client's own time limit (a DOMException, not an outbound error). */
const timedOut = (err: unknown) => err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");

/**
 * Checks an issuer before it is saved: its discovery document must answer, name exactly this issuer
 * (never a multi-tenant `{tenantid}` one) and offer the code flow with https endpoints. Answers the
 * message naming the step that failed (never a status, a port or what the document said), or null when
 * it is fine.
 */
export async function checkIssuer(deps: Deps, connection: ProviderConnection): Promise<string | null> {
  let config: oidc.Configuration;
  try {
    config = await providerConfig(deps, connection, true);
  } catch (err) {
    const outbound = outboundCause(err);
    if (outbound)
      return outbound.message === OUTBOUND_TEXT.httpsRequired
        ? SSO_TEXT.issuerNotHttps
        : SSO_TEXT.issuerUnreachable(unreachableStep(outbound));
    if (timedOut(err) || timedOut((err as { cause?: unknown } | undefined)?.cause))
      return SSO_TEXT.issuerUnreachable(SSO_TEXT.fetchStep);
    if (err instanceof oidc.ClientError && err.code === "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED") {
      const named = (err.cause as { body?: { issuer?: unknown } } | undefined)?.body?.issuer;
      if (typeof named === "string" && named.includes("{tenantid}")) return SSO_TEXT.issuerMultiTenant;
      return SSO_TEXT.issuerMismatch;
    }
    if (err instanceof oidc.ClientError && err.code === "OAUTH_HTTP_REQUEST_FORBIDDEN") return SSO_TEXT.issuerNotHttps;
    return SSO_TEXT.issuerNotAnIssuer;
  }
  const meta = config.serverMetadata();
  if (meta.issuer.includes("{tenantid}")) return SSO_TEXT.issuerMultiTenant;
  // Exactly, character for character: ID tokens' `iss` is compared with the saved issuer as it is.
  if (meta.issuer !== connection.issuer) return SSO_TEXT.issuerMismatch;
  if (!meta.authorization_endpoint || !meta.token_endpoint || !meta.jwks_uri) return SSO_TEXT.issuerIncomplete;
  if (meta.response_types_supported && !meta.response_types_supported.includes("code"))
    return SSO_TEXT.issuerIncomplete;
  if (new URL(connection.issuer).protocol === "https:") {
    for (const endpoint of [meta.authorization_endpoint, meta.token_endpoint, meta.jwks_uri]) {
      if (new URL(endpoint).protocol !== "https:") return SSO_TEXT.issuerEndpointNotHttps;
    }
  }
  return null;
}

/** Why the library refused an authorization response, a token answer or an ID token: the reason shown. */
export function failureReason(err: unknown): { reason: SsoFailureReason; detail: string } {
  // openid-client wraps oauth4webapi's error (its `cause`), whose own `cause` names the claim.
  const inner = (err as { cause?: unknown } | undefined)?.cause;
  const innerMessage = inner instanceof Error ? inner.message : undefined;
  const detail = (innerMessage ?? (err instanceof Error ? err.message : "failed")).slice(0, 200);
  if (outboundCause(err)) return { reason: "provider-unreachable", detail };
  if (err instanceof oidc.AuthorizationResponseError) return { reason: "provider-refused", detail: err.error };
  if (err instanceof oidc.ResponseBodyError) return { reason: "provider-error", detail: err.error };
  if (err instanceof oidc.ClientError) {
    const claim =
      (inner as { cause?: { claim?: unknown } } | undefined)?.cause?.claim ??
      (inner as { claim?: unknown } | undefined)?.claim;
    switch (err.code) {
      case "OAUTH_JWT_CLAIM_COMPARISON_FAILED":
        if (claim === "aud" || claim === "azp") return { reason: "wrong-audience", detail };
        if (claim === "nonce") return { reason: "wrong-nonce", detail };
        if (claim === "iss") return { reason: "wrong-issuer", detail };
        return { reason: "invalid-token", detail };
      case "OAUTH_JWT_TIMESTAMP_CHECK_FAILED":
        return { reason: "token-expired", detail };
      case "OAUTH_KEY_SELECTION_FAILED":
        return { reason: "bad-signature", detail };
      case "OAUTH_INVALID_RESPONSE":
        if (/signature/i.test(detail)) return { reason: "bad-signature", detail };
        return { reason: "invalid-token", detail };
      case "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED":
        return { reason: "wrong-issuer", detail };
      default:
        return { reason: "invalid-token", detail };
    }
  }
  if (err instanceof TypeError || (err as { name?: string })?.name === "OperationProcessingError")
    return { reason: "invalid-token", detail };
  return { reason: "invalid-token", detail };
}
