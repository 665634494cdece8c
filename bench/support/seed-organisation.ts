import type { Database } from "@server/db/client";
import { apiKeys, organisations, users } from "@server/db/schema";
import { hmac, randomToken } from "@server/lib/crypto";
import { API_KEY_SCOPES, type ApiKeyScope } from "@shared/api-keys";

/**
 * A benchmark's organisation, written straight to the database: a superuser, `employees` employees with
 * their e-mail proved, and `keys` API keys with every scope (the superuser's). Returns the keys in clear
 * and the employees' e-mails.
 */
export async function seedOrganisation(
  database: Database,
  appSecret: string,
  p: { companyName: string; domain: string; employees: number; keys: number; now: Date },
): Promise<{ id: number; bossId: number; keys: string[]; employees: string[] }> {
  const { domain, now } = p;
  const [org] = await database.db
    .insert(organisations)
    .values({ companyName: p.companyName, domain, website: `https://${domain}`, websiteHost: domain, createdAt: now })
    .returning();
  if (!org) throw new Error("no organisation");
  const people = [
    { email: `boss@${domain}`, role: "superuser" as const },
    ...Array.from({ length: p.employees }, (_, i) => ({ email: `agent${i}@${domain}`, role: "client" as const })),
  ].map((u) => ({
    ...u,
    fullName: "Bench Person",
    passwordHash: "x",
    status: "active" as const,
    organisationId: org.id,
    emailVerifiedAt: now,
    createdAt: now,
  }));
  const inserted = await database.db.insert(users).values(people).returning({ id: users.id, email: users.email });
  const boss = inserted[0];
  if (!boss) throw new Error("no superuser");
  const keys = await addKeys(database, appSecret, { organisationId: org.id, createdBy: boss.id, now }, p.keys);
  return { id: org.id, bossId: boss.id, keys, employees: inserted.slice(1).map((u) => u.email) };
}

/** `count` API keys of an organisation with `scopes` (default every scope), returned in clear. */
export async function addKeys(
  database: Database,
  appSecret: string,
  p: { organisationId: number; createdBy: number; now: Date },
  count: number,
  scopes: readonly ApiKeyScope[] = API_KEY_SCOPES,
): Promise<string[]> {
  if (count === 0) return [];
  const keys = Array.from({ length: count }, () => `cpk_${randomToken(32)}`);
  await database.db.insert(apiKeys).values(
    keys.map((key, i) => ({
      organisationId: p.organisationId,
      // (a key's name is at most 80 characters)
      name: scopes.length === API_KEY_SCOPES.length ? `bench ${i}` : `bench ${scopes.join(" ")} ${i}`,
      scopes: [...scopes],
      prefix: key.slice(0, 12),
      keyHash: hmac(appSecret, "api-key", key),
      createdBy: p.createdBy,
      createdAt: p.now,
    })),
  );
  return keys;
}
