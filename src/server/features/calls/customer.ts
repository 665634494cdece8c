import { hmac } from "@server/lib/crypto";
import { openSecret, SEALED_PURPOSES, sealSecret } from "@server/lib/sealed-secrets";

/**
 * A customer's reference (`customerRef`, contract "Calls") is never kept in plain text: rows hold it sealed
 * (bound to the organisation and this purpose) and find it through a keyed hash whose key is derived from
 * APP_SECRET and the organisation, so the same reference at two organisations hashes differently.
 */
export function customerHash(appSecret: string, organisationId: number, customerRef: string): string {
  return hmac(appSecret, `call-customer:${organisationId}`, customerRef);
}

export function sealCustomerRef(appSecret: string, organisationId: number, customerRef: string): string {
  return sealSecret(appSecret, SEALED_PURPOSES.customerRef, organisationId, customerRef);
}

/** The reference sealed in one of the organisation's rows, or null when it does not open there. */
export function openCustomerRef(appSecret: string, organisationId: number, sealed: string): string | null {
  return openSecret(appSecret, SEALED_PURPOSES.customerRef, organisationId, sealed);
}
