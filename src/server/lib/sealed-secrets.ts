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
} as const;
export type SealedPurpose = (typeof SEALED_PURPOSES)[keyof typeof SEALED_PURPOSES];

/** The mark migration 0025 put on every value sealed before values were bound (plain `seal`). */
export const LEGACY_MARK = "legacy:";

export const sealedContext = (purpose: SealedPurpose, organisationId: number) => `${purpose}:${organisationId}`;

/** `plain` sealed for one organisation and purpose. */
export function sealSecret(appSecret: string, purpose: SealedPurpose, organisationId: number, plain: string): string {
  return sealFor(appSecret, sealedContext(purpose, organisationId), plain);
}

/**
 * The value sealed in an organisation's row of `purpose`, or null when it does not open there: sealed for
 * another organisation or purpose (copied between rows), still marked legacy (the start re-seals those first),
 * malformed, or sealed under another APP_SECRET. Never throws.
 */
export function openSecret(
  appSecret: string,
  purpose: SealedPurpose,
  organisationId: number,
  sealed: string,
): string | null {
  if (sealed.startsWith(LEGACY_MARK)) return null;
  try {
    return unsealFor(appSecret, sealedContext(purpose, organisationId), sealed);
  } catch {
    return null;
  }
}

/** The tables whose rows hold a value sealed before migration 0025 (SSO client secrets were always bound). */
const LEGACY_COLUMNS = [
  {
    table: "webhook_endpoints",
    id: "organisation_id",
    column: "secret_sealed",
    purpose: SEALED_PURPOSES.webhookSecret,
  },
  { table: "employee_access_codes", id: "id", column: "code_sealed", purpose: SEALED_PURPOSES.accessCode },
] as const;

/**
 * The second half of migration 0025, which SQL cannot do (it has no APP_SECRET): every value the migration
 * marked legacy is opened with plain `unseal` and sealed again bound to its own row's organisation and
 * purpose. Run by the server's start after the migrations, before it listens; idempotent (a row is updated
 * only while it still holds the marked value, so several processes starting at once re-seal it once).
 * A marked value that does not open (another APP_SECRET) is left as it is: it stays unreadable.
 */
export async function resealLegacySecrets(
  db: Db,
  appSecret: string,
): Promise<{ resealed: number; unreadable: number }> {
  let resealed = 0;
  let unreadable = 0;
  for (const { table, id, column, purpose } of LEGACY_COLUMNS) {
    const rows = await db.rows<{ id: number; organisation_id: number; sealed: string }>(sql`
      select ${sql.identifier(id)} as id, organisation_id, ${sql.identifier(column)} as sealed
      from ${sql.identifier(table)} where starts_with(${sql.identifier(column)}, ${LEGACY_MARK})`);
    for (const row of rows) {
      const organisationId = Number(row.organisation_id);
      const old = row.sealed.slice(LEGACY_MARK.length);
      let bound: string;
      try {
        bound = sealSecret(appSecret, purpose, organisationId, unseal(appSecret, old));
      } catch {
        // Marked twice over (already bound to this very row): only the mark goes. Anything else stays unreadable.
        const own = openSecret(appSecret, purpose, organisationId, old);
        if (own === null) {
          unreadable++;
          continue;
        }
        bound = old;
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
