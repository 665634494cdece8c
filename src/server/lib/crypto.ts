import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from "node:crypto";

/** A random token of `bytes` bytes (default 32 = 256 bits), base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** A string of `length` decimal digits, uniform (randomInt has no modulo bias). */
export function randomDigits(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += String(randomInt(10));
  return out;
}

/** Upper-case letters and digits without look-alikes (no 0/O, 1/I/L): 31 symbols, ~4.95 bits each. */
const CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/** An access code such as "K7QM-9XTR-C2PW": 12 symbols, about 59 bits. */
export function randomAccessCode(): string {
  let s = "";
  for (let i = 0; i < 12; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`;
}

/** Canonical form of a typed access code: upper-case, separators and spaces dropped. */
export function normaliseAccessCode(code: string): string {
  return code.toUpperCase().replace(/[^0-9A-Z]/g, "");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}

export function hmac(secret: string, purpose: string, value: string): string {
  return createHmac("sha256", secret).update(`${purpose}\0${value}`).digest("base64url");
}

/**
 * Whether two secrets are equal, in time that depends on neither's content nor length: both are hashed
 * to 32 bytes first, so a wrong guess does not learn the length from an early return.
 */
export function safeEqual(a: string, b: string): boolean {
  const x = createHash("sha256").update(a).digest();
  const y = createHash("sha256").update(b).digest();
  return timingSafeEqual(x, y);
}

function keyFor(secret: string): Buffer {
  return createHash("sha256").update(`seal\0${secret}`).digest();
}

/**
 * AES-256-GCM under a key derived from APP_SECRET, bound to nothing: a value sealed so opens in any row.
 * Stored secrets use `sealFor` through lib/sealed-secrets.ts (bound to organisation and purpose); `unseal`
 * remains only to re-seal values stored plain (lib/sealed-secrets.ts, at each start).
 */
export function seal(secret: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(secret), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
}

export function unseal(secret: string, sealed: string): string {
  const [iv, tag, body] = sealed.split(".").map((p) => Buffer.from(p, "base64url"));
  if (!iv || !tag || !body) throw new Error("sealed value is malformed");
  const decipher = createDecipheriv("aes-256-gcm", keyFor(secret), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
}

/**
 * `seal` bound to a context (e.g. `sso-client-secret:42`: purpose and organisation) as AES-GCM additional
 * data: a sealed value copied to another organisation's row or used for another purpose does not open.
 */
export function sealFor(secret: string, context: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(secret), iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
}

export function unsealFor(secret: string, context: string, sealed: string): string {
  const [iv, tag, body] = sealed.split(".").map((p) => Buffer.from(p, "base64url"));
  if (!iv || !tag || !body) throw new Error("sealed value is malformed");
  const decipher = createDecipheriv("aes-256-gcm", keyFor(secret), iv);
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
}
