import type { Db } from "@server/db/client";
import { sql } from "drizzle-orm";
import { sealFor, unseal, unsealFor } from "./crypto";

/**
 * What each sealed value is for. A value is sealed with `<purpose>:<organisation id>` as AES-GCM additional
 * data (`sealFor`), so it opens only in its own organisation's row of its own kind: copied into another
 * organisation's row, or into a row of another purpose, it does not open (docs/security.md, "Sealed secrets").
 */
export const SEALED_PURPOSES = {
  webhookSecret: "webhook-secret",
  accessCode: "employee-access-code",
  ssoClientSecret: "sso-client-secret",
  customerRef: "call-customer",
} as const;
export type SealedPurpose = (typeof SEALED_PURPOSES)[keyof typeof SEALED_PURPOSES];

export const sealedContext = (purpose: SealedPurpose, organisationId: number) => `${purpose}:${organisationId}`;

/** `plain` sealed for one organisation and purpose. */
export function sealSecret(appSecret: string, purpose: SealedPurpose, organisationId: number, plain: string): string {
  return sealFor(appSecret, sealedContext(purpose, organisationId), plain);
}

/**
 * The value sealed in an organisation's row of `purpose`, or null when it does not open there: sealed for
 * another organisation or purpose (copied between rows), sealed plain (bound to nothing: the start re-seals
 * those first), malformed, or sealed under another APP_SECRET. Never throws.
 */
export function openSecret(
  appSecret: string,
  purpose: SealedPurpose,
  organisationId: number,
  sealed: string,
): string | null {
  try {
    return unsealFor(appSecret, sealedContext(purpose, organisationId), sealed);
  } catch {
    return null;
  }
}

/** The columns of sealed values that were once sealed plain (SSO client secrets were always bound). */
const ONCE_PLAIN = [
  {
    table: "webhook_endpoints",
    id: "organisation_id",
    column: "secret_sealed",
    purpose: SEALED_PURPOSES.webhookSecret,
  },
  { table: "employee_access_codes", id: "id", column: "code_sealed", purpose: SEALED_PURPOSES.accessCode },
] as const;

/**
 * Re-seals the values sealed plain (bound to nothing): those stored before this release, and any a process
 * of the previous release stores during a rolling upgrade. SQL has no APP_SECRET, so this is the server's
 * start's work, after the migrations and before it listens; idempotent (a row is updated only while it
 * still holds the value read, so several processes starting at once re-seal it once). A value that opens
 * under its own row's context is left alone; one that opens neither way (copied from another row, or
 * sealed under another APP_SECRET) stays unreadable and is counted, for the start's log line.
 */
export async function resealPlainSecrets(db: Db, appSecret: string): Promise<{ resealed: number; unreadable: number }> {
  let resealed = 0;
  let unreadable = 0;
  for (const { table, id, column, purpose } of ONCE_PLAIN) {
    const rows = await db.rows<{ id: number; organisation_id: number; sealed: string }>(sql`
      select ${sql.identifier(id)} as id, organisation_id, ${sql.identifier(column)} as sealed
      from ${sql.identifier(table)}`);
    for (const row of rows) {
      const organisationId = Number(row.organisation_id);
      if (openSecret(appSecret, purpose, organisationId, row.sealed) !== null) continue;
      let bound: string;
      try {
        bound = sealSecret(appSecret, purpose, organisationId, unseal(appSecret, row.sealed));
      } catch {
        unreadable++;
        continue;
      }
      const updated = await db.rows(sql`
        update ${sql.identifier(table)} set ${sql.identifier(column)} = ${bound}
        where ${sql.identifier(id)} = ${Number(row.id)} and ${sql.identifier(column)} = ${row.sealed}
        returning 1`);
      resealed += updated.length;
    }
  }
  return { resealed, unreadable };
}
