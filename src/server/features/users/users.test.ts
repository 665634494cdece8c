/**
 * The users home's rules, below HTTP: called as the features that use them call them, with a real database
 * and no server (test/deps.ts through the `deps` fixture).
 */
import { randomBytes } from "node:crypto";
import { deactivateOrganisation } from "@server/features/organisations";
import { ERROR_CODES } from "@shared/error-codes";
import { describe, expect, test } from "@test/app-test";
import { createEmployee, createEmployer } from "@test/fixtures";
import { createUser } from "@test/helpers";
import {
  deactivateEmployee,
  deactivateEmployer,
  findSessionUser,
  findUserById,
  insertSession,
  signInRefusal,
} from "./index";

const HOUR = 3_600_000;

describe("signInRefusal: the one rule every way of signing in asks", () => {
  test("lets an active, verified account in, and an admin of no organisation", async ({ deps }) => {
    const { user } = await createEmployer(deps);
    expect(await signInRefusal(deps.deps.db, user)).toBeNull();
    const admin = await createUser(deps, { role: "admin" });
    expect(await signInRefusal(deps.deps.db, admin)).toBeNull();
  });

  test("refuses no account and a deactivated one alike, as deactivated", async ({ deps }) => {
    expect(await signInRefusal(deps.deps.db, undefined)).toMatchObject({
      reason: "deactivated",
      error: { statusCode: 403, code: ERROR_CODES.accountDeactivated },
    });
    const gone = await createUser(deps, { status: "deactivated" });
    expect(await signInRefusal(deps.deps.db, gone)).toMatchObject({
      reason: "deactivated",
      error: { code: ERROR_CODES.accountDeactivated },
    });
  });

  test("refuses an active account of a deactivated organisation, whatever the account's status", async ({ deps }) => {
    const { org, user, domain } = await createEmployer(deps);
    const employee = await createEmployee(deps, org.id, domain);
    expect(await deactivateOrganisation(deps.deps.db, org.id, deps.clock.now())).toBe(true);
    for (const account of [user, employee]) {
      expect((await findUserById(deps.deps.db, account.id))?.status).toBe("active");
      expect(await signInRefusal(deps.deps.db, account)).toMatchObject({
        reason: "deactivated",
        error: { code: ERROR_CODES.accountDeactivated },
      });
    }
  });

  test("then refuses an unverified e-mail, then a pending account", async ({ deps }) => {
    const unverified = await createUser(deps, { verified: false, status: "pending" });
    expect(await signInRefusal(deps.deps.db, unverified)).toMatchObject({
      reason: "unverified",
      error: { statusCode: 403, code: ERROR_CODES.emailNotVerified },
    });
    const pending = await createUser(deps, { status: "pending" });
    expect(await signInRefusal(deps.deps.db, pending)).toMatchObject({
      reason: "pending",
      error: { statusCode: 403, code: ERROR_CODES.accountPending },
    });
  });
});

/** A live session of the user, as signing in stores it; its token hash. */
async function liveSession(
  deps: { deps: { db: Parameters<typeof insertSession>[0] }; clock: { now(): Date } },
  userId: number,
) {
  const tokenHash = randomBytes(32).toString("hex");
  const now = deps.clock.now();
  await insertSession(deps.deps.db, {
    tokenHash,
    userId,
    now,
    expiresAt: new Date(now.getTime() + 24 * HOUR),
    userAgent: null,
    ip: "127.0.0.1",
  });
  return tokenHash;
}

describe("deactivation and its cascade", () => {
  test("an employer's deactivation takes every account of its organisation and ends their sessions, and no one else's", async ({
    deps,
  }) => {
    const db = deps.deps.db;
    const a = await createEmployer(deps);
    const staff = await createEmployee(deps, a.org.id, a.domain);
    const b = await createEmployer(deps);
    const sessions = {
      boss: await liveSession(deps, a.user.id),
      staff: await liveSession(deps, staff.id),
      other: await liveSession(deps, b.user.id),
    };
    const idleSince = new Date(deps.clock.now().getTime() - HOUR);
    expect(await findSessionUser(db, sessions.staff, deps.clock.now(), idleSince)).toMatchObject({ id: staff.id });

    const done = await deactivateEmployer(db, a.user.id, deps.clock.now());
    expect(done).toMatchObject({ id: a.user.id, organisationId: a.org.id, count: 2 });
    expect(done?.ids.sort()).toEqual([a.user.id, staff.id].sort());
    expect((await findUserById(db, staff.id))?.status).toBe("deactivated");
    expect(await findSessionUser(db, sessions.boss, deps.clock.now(), idleSince)).toBeUndefined();
    expect(await findSessionUser(db, sessions.staff, deps.clock.now(), idleSince)).toBeUndefined();
    expect(await findSessionUser(db, sessions.other, deps.clock.now(), idleSince)).toMatchObject({ id: b.user.id });
    // Again: nothing is left to deactivate; an employee's id is no employer.
    expect(await deactivateEmployer(db, a.user.id, deps.clock.now())).toMatchObject({ count: 0, ids: [] });
    expect(await deactivateEmployer(db, staff.id, deps.clock.now())).toBeUndefined();
  });

  test("an employee is deactivated only by its own organisation, and never a superuser that way", async ({ deps }) => {
    const db = deps.deps.db;
    const a = await createEmployer(deps);
    const b = await createEmployer(deps);
    const staff = await createEmployee(deps, a.org.id, a.domain);
    const session = await liveSession(deps, staff.id);
    expect(await deactivateEmployee(db, b.org.id, staff.id, deps.clock.now())).toBeUndefined();
    expect(await deactivateEmployee(db, a.org.id, a.user.id, deps.clock.now())).toBeUndefined();
    expect((await findUserById(db, a.user.id))?.status).toBe("active");
    expect(await deactivateEmployee(db, a.org.id, staff.id, deps.clock.now())).toMatchObject({ id: staff.id });
    expect((await findUserById(db, staff.id))?.status).toBe("deactivated");
    const idleSince = new Date(deps.clock.now().getTime() - HOUR);
    expect(await findSessionUser(db, session, deps.clock.now(), idleSince)).toBeUndefined();
  });

  test("a deactivated organisation's live sessions stop at once, before any account is deactivated", async ({
    deps,
  }) => {
    const db = deps.deps.db;
    const a = await createEmployer(deps);
    const session = await liveSession(deps, a.user.id);
    const idleSince = new Date(deps.clock.now().getTime() - HOUR);
    expect(await findSessionUser(db, session, deps.clock.now(), idleSince)).toMatchObject({ id: a.user.id });
    await deactivateOrganisation(db, a.org.id, deps.clock.now());
    expect(await findSessionUser(db, session, deps.clock.now(), idleSince)).toBeUndefined();
  });
});
