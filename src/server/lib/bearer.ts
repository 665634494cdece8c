import { hmac, randomToken, safeEqual, sha256 } from "./crypto";

/**
 * The one scheme of the product's bearer credentials (`Authorization: Bearer <credential>`): the API keys of
 * /api/v1 and the SCIM tokens of /api/scim/v2. A credential is a fixed prefix and random bits, holding a
 * public look-up key (the row is found by it, with an index, never by the secret); only an HMAC of the whole
 * credential under a key derived from APP_SECRET (bound to the kind's purpose) is stored, and a presented
 * credential is compared with it in constant time, against a stand-in when no row was found.
 * A database dump alone therefore neither holds a credential nor lets anyone test guesses against it.
 */
export type BearerKind = {
  /** the HMAC's purpose: a hash of one kind never matches another kind's */
  purpose: string;
  /** a well-formed credential of this kind; its first group is the look-up key */
  format: RegExp;
  /** a new credential of this kind (at least 256 random bits) */
  mint: () => string;
};

/** `cpk_` and 43 base64url characters (256 random bits); its first 12 characters are the key's public prefix. */
export const API_KEY_BEARER: BearerKind = {
  purpose: "api-key",
  format: /^(cpk_[A-Za-z0-9_-]{8})[A-Za-z0-9_-]{35}$/,
  mint: () => `cpk_${randomToken(32)}`,
};

/** `cpscim_`, a public 16-hex-digit token id, `.` and 43 base64url characters (256 random bits). */
export const SCIM_TOKEN_BEARER: BearerKind = {
  purpose: "scim-token",
  format: /^cpscim_([0-9a-f]{16})\.[A-Za-z0-9_-]{43}$/,
  mint: () => `cpscim_${Buffer.from(randomToken(8), "base64url").toString("hex")}.${randomToken(32)}`,
};

/** The credential of an `Authorization` header (`Bearer <credential>`, any case), or null. */
export function bearerCredential(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1] ?? null;
}

/** The look-up key of a well-formed credential of `kind`, or null for anything else. */
export function bearerLookup(kind: BearerKind, credential: string | null): string | null {
  return credential === null ? null : (kind.format.exec(credential)?.[1] ?? null);
}

/** The stored form of a credential: HMAC-SHA-256 under APP_SECRET, bound to the kind's purpose. */
export function bearerHash(appSecret: string, kind: BearerKind, credential: string): string {
  return hmac(appSecret, kind.purpose, credential);
}

/** A new credential of `kind`, with its look-up key and the hash to store (the credential is shown once). */
export function issueBearer(appSecret: string, kind: BearerKind) {
  const credential = kind.mint();
  const lookup = bearerLookup(kind, credential);
  if (lookup === null) throw new Error(`a minted ${kind.purpose} does not match its own format`);
  return { credential, lookup, hash: bearerHash(appSecret, kind, credential) };
}

/**
 * Whether `credential` is the one whose stored hash is `stored` (undefined: no row was found), in time that
 * does not depend on either: `"current"` for the HMAC, `"legacy"` when `acceptLegacySha256` is set and
 * `stored` is the plain SHA-256 of an older scheme (SCIM tokens created before the HMAC: the caller
 * re-stores the HMAC then, so the row holds the plain hash no longer), null otherwise. `presentedHash`: the
 * credential's `bearerHash`, when the caller computed it already (a hot route's statement compared it).
 */
export function verifyBearer(
  appSecret: string,
  kind: BearerKind,
  credential: string | null,
  stored: string | undefined,
  opts: { acceptLegacySha256?: boolean; presentedHash?: string } = {},
): "current" | "legacy" | null {
  const presented = credential ?? "";
  const expected = stored ?? bearerHash(appSecret, kind, `${kind.purpose}:no-such-credential`);
  const current = safeEqual(opts.presentedHash ?? bearerHash(appSecret, kind, presented), expected);
  const legacy = opts.acceptLegacySha256 === true && safeEqual(sha256(presented), expected);
  if (credential === null || stored === undefined) return null;
  return current ? "current" : legacy ? "legacy" : null;
}
