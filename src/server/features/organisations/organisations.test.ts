/**
 * The organisations home's rules, below HTTP: "is this organisation active" and "which organisation does
 * this call act for", called as the features call them, with a real database and no server
 * (test/deps.ts through the `deps` fixture).
 */
import type { Actor, SessionUser } from "@server/context";
import { organisations } from "@server/db/schema";
import { ERROR_CODES } from "@shared/error-codes";
import { describe, expect, test } from "@test/app-test";
import { createEmployer } from "@test/fixtures";
import { sql } from "drizzle-orm";
import {
  deactivateOrganisation,
  findOrganisation,
  listDeactivatedOrganisations,
  organisationActive,
  organisationActiveSql,
  organisationFor,
  organisationIsActive,
  reactivateOrganisation,
} from "./index";

describe("is this organisation active", () => {
  test("an organisation is active until an admin deactivates it, and again once reactivated", async ({ deps }) => {
    const db = deps.deps.db;
    const { org } = await createEmployer(deps);
    const other = await createEmployer(deps);
    expect(await organisationActive(db, org.id)).toBe(true);
    // An account of no organisation (a platform admin) is not refused by it.
    expect(await organisationActive(db, null)).toBe(true);

    const first = deps.clock.now();
    expect(await deactivateOrganisation(db, org.id, first)).toBe(true);
    expect(await organisationActive(db, org.id)).toBe(false);
    expect(organisationIsActive(await findOrganisation(db, org.id))).toBe(false);
    // A second deactivation changes nothing and keeps the first time.
    deps.clock.advance(60_000);
    expect(await deactivateOrganisation(db, org.id, deps.clock.now())).toBe(false);
    expect((await findOrganisation(db, org.id))?.deactivatedAt).toEqual(first);
    expect((await listDeactivatedOrganisations(db)).map((o) => o.id)).toEqual([org.id]);
    expect(await organisationActive(db, other.org.id)).toBe(true);

    expect(await reactivateOrganisation(db, org.id)).toMatchObject({ id: org.id, domain: org.domain });
    expect(await reactivateOrganisation(db, org.id)).toBeUndefined();
    expect(await organisationActive(db, org.id)).toBe(true);
    expect((await findOrganisation(db, org.id))?.deactivatedAt).toBeNull();
    expect(await listDeactivatedOrganisations(db)).toEqual([]);
  });

  test("the SQL fragment gives the same answer inside a statement, for no organisation too", async ({ deps }) => {
    const db = deps.deps.db;
    const { org } = await createEmployer(deps);
    const active = async (id: number | null) =>
      (await db.rows<{ active: boolean }>(sql`select ${organisationActiveSql(sql`${id}::int`)} as active`))[0]?.active;
    expect(await active(org.id)).toBe(true);
    expect(await active(null)).toBe(true);
    await deactivateOrganisation(db, org.id, deps.clock.now());
    expect(await active(org.id)).toBe(false);
    // Only the organisation's own row decides: its status, not whether it has accounts left.
    const [row] = await db.select({ status: organisations.status }).from(organisations).where(sql`id = ${org.id}`);
    expect(row?.status).toBe("deactivated");
  });
});

const actor = (user: Partial<SessionUser> & Pick<SessionUser, "role" | "organisationId">): Actor => ({
  user: { id: 1, email: "someone@example.com", fullName: "Someone", status: "active", ...user },
  ip: "127.0.0.1",
  clientKey: "127.0.0.1",
  requestId: "test",
});

describe("which organisation a call acts for", () => {
  test("a superuser's or employee's own, whatever it asks for", () => {
    expect(organisationFor(actor({ role: "superuser", organisationId: 7 }))).toBe(7);
    expect(organisationFor(actor({ role: "client", organisationId: 7 }), { requested: 9 })).toBe(7);
  });

  test("for an admin, the one it names; naming none is the one 'no organisation' error, or null when allowed", () => {
    const admin = actor({ role: "admin", organisationId: null });
    expect(organisationFor(admin, { requested: 9 })).toBe(9);
    expect(() => organisationFor(admin)).toThrow(
      expect.objectContaining({ statusCode: 404, code: ERROR_CODES.noOrganisation }),
    );
    expect(organisationFor(admin, { orNone: true })).toBeNull();
  });

  test("nobody signed in is refused before anything else", () => {
    const nobody: Actor = { user: null, ip: "127.0.0.1", clientKey: "127.0.0.1", requestId: "test" };
    expect(() => organisationFor(nobody, { orNone: true })).toThrow(expect.objectContaining({ statusCode: 401 }));
  });
});
