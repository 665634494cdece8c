import type { SessionUser } from "@server/context";
import type { Db, Executor } from "@server/db/client";
import { organisations, sessions, ssoLinks, users } from "@server/db/schema";
import { organisationActiveSql } from "@server/features/organisations";
import { hostUnderSql } from "@server/lib/origin";
import { containsPattern } from "@server/lib/paging";
import type { AccountRecord } from "@shared/admin";
import type { EmployeeRecord } from "@shared/employer";
import { and, asc, count, desc, eq, gt, ilike, inArray, isNotNull, lt, ne, or, type SQL, sql } from "drizzle-orm";

/**
 * The one repository of the `users` and `sessions` tables. Other features call these functions (or the
 * service beside them); only the code statements of features/codes join `users` on purpose.
 */

export type UserRow = typeof users.$inferSelect;

/** Whether the account `id` (an SQL expression) is active, inside another feature's statement (an API key's creator). */
export function userActiveSql(id: SQL): SQL {
  return sql`exists (select 1 from users u where u.id = ${id} and u.status = 'active')`;
}

/** Whether the session `id` (an SQL expression) is still signed in at `at` (a timestamptz expression): a dashboard call's. */
export function sessionLiveSql(id: SQL, at: SQL): SQL {
  return sql`exists (select 1 from sessions s where s.id = ${id} and s.expires_at > ${at})`;
}

/** The id of the session whose token hashes to `tokenHash` (an SQL expression; null when none), inside another statement. */
export function sessionIdSql(tokenHash: SQL): SQL {
  return sql`(select s.id from sessions s where s.token_hash = ${tokenHash})`;
}

// ---- one account ----

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase()));
  return row;
}

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

/** Inserts a user unless the e-mail is taken; returns its id, or undefined when taken. */
export async function insertUser(db: Executor, values: typeof users.$inferInsert): Promise<number | undefined> {
  const [row] = await db
    .insert(users)
    .values(values)
    .onConflictDoNothing({ target: users.email })
    .returning({ id: users.id });
  return row?.id;
}

export async function setPasswordHash(db: Executor, userId: number, passwordHash: string) {
  await db.update(users).set({ passwordHash }).where(eq(users.id, userId));
}

export async function markEmailVerified(db: Executor, userId: number, now: Date) {
  await db.update(users).set({ emailVerifiedAt: now }).where(eq(users.id, userId));
}

export async function anyAdminExists(db: Db): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
  return row !== undefined;
}

/** The signed-in user's profile, with the password hash for a password change and the company's name. */
export async function findAccountUser(db: Db, userId: number) {
  const [row] = await db
    .select({
      ...sessionUserColumns,
      emailVerifiedAt: users.emailVerifiedAt,
      passwordHash: users.passwordHash,
      organisation: organisations.companyName,
    })
    .from(users)
    .leftJoin(organisations, eq(organisations.id, users.organisationId))
    .where(eq(users.id, userId));
  return row;
}

/** The name, company and website of a user (empty strings without an organisation): who a code names. */
export async function clientInfo(db: Db, userId: number) {
  const [row] = await db
    .select({ fullName: users.fullName, companyName: organisations.companyName, website: organisations.website })
    .from(users)
    .leftJoin(organisations, eq(organisations.id, users.organisationId))
    .where(eq(users.id, userId));
  return row
    ? { fullName: row.fullName, companyName: row.companyName ?? "", website: row.website ?? "" }
    : { fullName: "", companyName: "", website: "" };
}

/** E-mail addresses of the organisation's active employers (superusers). */
export async function employerEmails(db: Executor, organisationId: number): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.organisationId, organisationId), eq(users.role, "superuser"), eq(users.status, "active")));
  return rows.map((r) => r.email);
}

/** The codes generated and verified by every account, added up (the admin dashboard's figures). */
export async function codeTotals(db: Db) {
  const [row] = await db
    .select({
      totalGenerated: sql<string>`coalesce(sum(${users.codesGenerated}), 0)`,
      totalVerified: sql<string>`coalesce(sum(${users.codesVerified}), 0)`,
    })
    .from(users);
  return { totalGenerated: Number(row?.totalGenerated ?? 0), totalVerified: Number(row?.totalVerified ?? 0) };
}

// ---- an organisation's employees ----

/** Active employees (clients) of an organisation, optionally those whose e-mail contains `q`. */
function employeeFilter(organisationId: number, q: string | undefined): SQL | undefined {
  const base = and(eq(users.organisationId, organisationId), eq(users.role, "client"), eq(users.status, "active"));
  return q ? and(base, ilike(users.email, containsPattern(q))) : base;
}

export async function listEmployees(
  db: Db,
  organisationId: number,
  opts: { q?: string; limit?: number; offset?: number } = {},
): Promise<EmployeeRecord[]> {
  const query = db
    .select({
      id: users.id,
      fullName: users.fullName,
      email: users.email,
      codesGenerated: users.codesGenerated,
      codesVerified: users.codesVerified,
    })
    .from(users)
    .where(employeeFilter(organisationId, opts.q))
    .orderBy(asc(users.id));
  return opts.limit === undefined ? query : query.limit(opts.limit).offset(opts.offset ?? 0);
}

export async function countEmployees(db: Db, organisationId: number, q?: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(employeeFilter(organisationId, q));
  return row?.n ?? 0;
}

// ---- employer accounts (the admin dashboard) ----

/**
 * "The website is verified" is the sites feature's rule (features/sites `websiteVerifiedSql`); the users home
 * imports no feature, so the caller hands it in and this statement applies it to the organisation's columns.
 */
export type WebsiteVerifiedSql = (organisationId: SQL, websiteHost: SQL) => SQL;

const accountColumns = (websiteVerified: WebsiteVerifiedSql) => ({
  id: users.id,
  fullName: users.fullName,
  email: users.email,
  companyName: sql<string>`coalesce(${organisations.companyName}, '')`,
  website: sql<string>`coalesce(${organisations.website}, '')`,
  organisationId: users.organisationId,
  emailVerified: sql<boolean>`${users.emailVerifiedAt} is not null`,
  /** whether a verified site of the organisation is the website's host or a parent of it */
  websiteVerified: sql<boolean>`${websiteVerified(sql`${organisations.id}`, sql`${organisations.websiteHost}`)}`,
});

/**
 * Employer accounts (superusers) in one state. Pending ones are listed whether or not their e-mail is
 * verified yet (`emailVerified` says which): the admin sees who is waiting, and activation itself still
 * needs a verified address.
 */
function employerFilter(state: "pending" | "active", q: string | undefined): SQL | undefined {
  const base =
    state === "pending"
      ? and(eq(users.role, "superuser"), eq(users.status, "pending"))
      : and(eq(users.role, "superuser"), eq(users.status, "active"));
  if (!q) return base;
  const pattern = containsPattern(q);
  return and(
    base,
    or(ilike(users.fullName, pattern), ilike(users.email, pattern), ilike(organisations.website, pattern)),
  );
}

export async function listEmployers(
  db: Db,
  state: "pending" | "active",
  opts: { websiteVerified: WebsiteVerifiedSql; q?: string; limit?: number; offset?: number },
): Promise<AccountRecord[]> {
  const query = db
    .select(accountColumns(opts.websiteVerified))
    .from(users)
    .leftJoin(organisations, eq(organisations.id, users.organisationId))
    .where(employerFilter(state, opts.q))
    .orderBy(asc(users.id));
  return opts.limit === undefined ? query : query.limit(opts.limit).offset(opts.offset ?? 0);
}

export async function countEmployers(db: Db, state: "pending" | "active", q?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(users)
    .leftJoin(organisations, eq(organisations.id, users.organisationId))
    .where(employerFilter(state, q));
  return row?.n ?? 0;
}

/** Activates a pending, e-mail-verified superuser; returns it, or undefined. */
export async function activateEmployer(db: Db, id: number, now: Date) {
  const [row] = await db
    .update(users)
    .set({ status: "active", activatedAt: now })
    .where(
      and(eq(users.id, id), eq(users.role, "superuser"), eq(users.status, "pending"), isNotNull(users.emailVerifiedAt)),
    )
    .returning({ id: users.id, email: users.email, organisationId: users.organisationId });
  return row;
}

// ---- deactivation: the account, its sessions (live codes stop: the look-up joins an active user) ----

/** Deactivates an active employee of exactly this organisation and ends its sessions; returns it, or undefined. */
export async function deactivateEmployee(db: Db, organisationId: number, id: number, now: Date) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ status: "deactivated", deactivatedAt: now })
      .where(
        and(
          eq(users.id, id),
          eq(users.organisationId, organisationId),
          eq(users.role, "client"),
          eq(users.status, "active"),
        ),
      )
      .returning({ id: users.id, email: users.email });
    if (row) {
      await deleteSessionsOf(tx, row.id);
      await deleteSsoLinks(tx, row.id);
    }
    return row;
  });
}

/**
 * Deactivates an employer (superuser, whatever its status) and every other account of its organisation,
 * and ends all their sessions and SSO links, in one statement. Returns the employer and how many accounts
 * it deactivated (the employer included; 0 when none was left), or undefined when `id` is no employer.
 * (The admin marks the organisation deactivated first: features/organisations.)
 */
export async function deactivateEmployer(db: Db, id: number, now: Date) {
  const rows = await db.rows<{
    id: number;
    email: string;
    organisation_id: number | null;
    count: number;
    ids: number[];
  }>(
    sql`
      with employer as (
        select id, email, organisation_id from ${users}
        where id = ${id} and role = 'superuser'
      ), gone as (
        update ${users} u set status = 'deactivated', deactivated_at = ${now.toISOString()}::timestamptz
        from employer e
        where u.status <> 'deactivated' and u.role in ('superuser', 'client')
          and (u.id = e.id or u.organisation_id = e.organisation_id)
        returning u.id
      ), ended as (
        delete from ${sessions} where user_id in (select id from gone)
      ), unlinked as (
        delete from ${ssoLinks} where user_id in (select id from gone)
      )
      select e.id, e.email, e.organisation_id, (select count(*) from gone) as count,
        (select coalesce(array_agg(id), '{}') from gone) as ids from employer e`,
  );
  const row = rows[0];
  return row
    ? {
        id: Number(row.id),
        email: row.email,
        organisationId: row.organisation_id,
        count: Number(row.count),
        ids: row.ids.map(Number),
      }
    : undefined;
}

/**
 * Deactivates, in one statement, every superuser and client of the organisation `organisationId` (the
 * one whose domain is `domain`, if any) whatever its e-mail and however it was created (sign-up, SCIM,
 * JIT), and every other one whose e-mail domain is `domain` or under it (`eu.example.com`), except the
 * accounts of another organisation whose own domain is under `domain` (an e-mail belongs to the longest
 * matching domain). Their sessions end and their SSO links go. Admin accounts (and so the caller) are
 * never touched. Returns the ids deactivated.
 */
export async function deactivateDomain(
  db: Db,
  domain: string,
  organisationId: number | null,
  now: Date,
  callerId: number,
): Promise<number[]> {
  const rows = await db.rows<{ id: number }>(sql`
      with gone as (
        update ${users} u set status = 'deactivated', deactivated_at = ${now.toISOString()}::timestamptz
        where u.role in ('superuser', 'client') and u.status <> 'deactivated' and u.id <> ${callerId}
          and (
            u.organisation_id = ${organisationId}::int
            or (
              ${hostUnderSql(sql`regexp_replace(u.email, '^.*@', '')`, sql`${domain}::text`)}
              and not exists (
                select 1 from ${organisations} other where other.id = u.organisation_id
                  and other.domain <> ${domain}::text and ${hostUnderSql(sql`other.domain`, sql`${domain}::text`)})
            )
          )
        returning u.id
      ), ended as (
        delete from ${sessions} where user_id in (select id from gone)
      ), unlinked as (
        delete from ${ssoLinks} where user_id in (select id from gone)
      )
      select id from gone order by id`);
  return rows.map((r) => r.id);
}

// ---- sessions ----

/** The columns of a SessionUser, for every query that reads one. */
export const sessionUserColumns = {
  id: users.id,
  email: users.email,
  fullName: users.fullName,
  role: users.role,
  status: users.status,
  organisationId: users.organisationId,
};

/** The active user of a live session (neither expired nor idle since `idleSince`), with its last activity. */
export async function findSessionUser(
  db: Db,
  tokenHash: string,
  now: Date,
  idleSince: Date,
): Promise<(SessionUser & { lastSeenAt: Date }) | undefined> {
  const [row] = await db
    .select({ ...sessionUserColumns, lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.tokenHash, tokenHash),
        gt(sessions.expiresAt, now),
        gt(sessions.lastSeenAt, idleSince),
        eq(users.status, "active"),
        // a deactivated organisation's sessions in use stop at once, whatever its accounts' status
        organisationActiveSql(sql`${users.organisationId}`),
      ),
    );
  return row;
}

export async function touchSession(db: Db, tokenHash: string, now: Date) {
  await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenHash, tokenHash));
}

export async function insertSession(
  db: Db,
  values: {
    tokenHash: string;
    userId: number;
    now: Date;
    expiresAt: Date;
    userAgent: string | null;
    ip: string;
    viaSso?: boolean;
  },
) {
  await db.insert(sessions).values({
    viaSso: values.viaSso ?? false,
    tokenHash: values.tokenHash,
    userId: values.userId,
    createdAt: values.now,
    lastSeenAt: values.now,
    expiresAt: values.expiresAt,
    userAgent: values.userAgent,
    ip: values.ip,
  });
}

export async function deleteSession(db: Db, tokenHash: string) {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

/** Ends every session of a user (password reset, deactivation). */
export async function deleteSessionsOf(db: Executor, userId: number) {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

export async function deleteExpiredSessions(db: Db, now: Date) {
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
}

/** The user's sessions that are still alive (neither idle too long nor past their end), newest first. */
export async function listLiveSessions(db: Db, userId: number, now: Date, idleMs: number) {
  return db
    .select({
      id: sessions.id,
      tokenHash: sessions.tokenHash,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      userAgent: sessions.userAgent,
      ip: sessions.ip,
    })
    .from(sessions)
    .where(
      and(
        eq(sessions.userId, userId),
        gt(sessions.expiresAt, now),
        gt(sessions.lastSeenAt, new Date(now.getTime() - idleMs)),
      ),
    )
    .orderBy(desc(sessions.lastSeenAt), desc(sessions.id));
}

/** When the session with this token hash started, or undefined. */
export async function sessionStartedAt(db: Db, tokenHash: string): Promise<Date | undefined> {
  const [row] = await db
    .select({ createdAt: sessions.createdAt })
    .from(sessions)
    .where(eq(sessions.tokenHash, tokenHash));
  return row?.createdAt;
}

/** Ends every session of the user except the one with `keepTokenHash`; returns how many ended. */
export async function endOtherSessions(db: Db, userId: number, keepTokenHash: string): Promise<number> {
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), ne(sessions.tokenHash, keepTokenHash)))
    .returning({ id: sessions.id });
  return gone.length;
}

// ---- data protection ----

/** Cuts the addresses of sessions that started before `before` (RETENTION_IP_DAYS). */
export async function cutSessionAddresses(db: Executor, before: Date, cut: SQL, whole: SQL) {
  await db.execute(sql`
    update sessions set ip = ${cut}
    where created_at < ${before.toISOString()}::timestamptz and ${whole}`);
}

/**
 * Erases an account: its name and e-mail are replaced, its password can never match, it is deactivated
 * and its sessions end. The row stays (other rows and the audit log point at its id).
 */
export async function eraseUser(db: Executor, id: number, now: Date) {
  const [row] = await db
    .update(users)
    .set({
      email: `erased-${id}@erased.invalid`,
      fullName: "Erased account",
      passwordHash: "erased",
      status: "deactivated",
      deactivatedAt: now,
    })
    .where(and(eq(users.id, id), ne(users.role, "admin")))
    .returning({ id: users.id });
  if (row) {
    await deleteSessionsOf(db, id);
    await deleteSsoLinks(db, id);
  }
  return row !== undefined;
}

/** Every stored session of a user (for the export: no token hashes). */
export async function sessionsOf(db: Db, userId: number) {
  return db
    .select({
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      userAgent: sessions.userAgent,
      ip: sessions.ip,
    })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(desc(sessions.createdAt));
}

// ---- single sign-on links: which account an identity provider's (iss, sub) is ----

/** The account linked to the identity provider's `(iss, sub)`, or undefined. */
export async function findUserBySsoLink(db: Executor, issuer: string, subject: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select({ user: users })
    .from(ssoLinks)
    .innerJoin(users, eq(users.id, ssoLinks.userId))
    .where(and(eq(ssoLinks.issuer, issuer), eq(ssoLinks.subject, subject)));
  return row?.user;
}

/** The `(iss, sub)` an account is linked to, or undefined. */
export async function ssoLinkOf(db: Executor, userId: number) {
  const [row] = await db
    .select({ issuer: ssoLinks.issuer, subject: ssoLinks.subject })
    .from(ssoLinks)
    .where(eq(ssoLinks.userId, userId));
  return row;
}

/** Links an account to `(iss, sub)` unless either is linked already; says whether it did. */
export async function insertSsoLink(
  db: Executor,
  link: { userId: number; organisationId: number; issuer: string; subject: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .insert(ssoLinks)
    .values({
      userId: link.userId,
      organisationId: link.organisationId,
      issuer: link.issuer,
      subject: link.subject,
      createdAt: link.now,
    })
    .onConflictDoNothing()
    .returning({ id: ssoLinks.id });
  return rows.length > 0;
}

/** Deletes an account's SSO links (deactivation, SCIM deprovisioning, erasure). */
export async function deleteSsoLinks(db: Executor, userId: number) {
  await db.delete(ssoLinks).where(eq(ssoLinks.userId, userId));
}

/** Deletes every SSO link of an organisation's accounts (its connection's issuer or client changed); how many. */
export async function deleteSsoLinksOfOrganisation(db: Executor, organisationId: number): Promise<number> {
  const gone = await db
    .delete(ssoLinks)
    .where(eq(ssoLinks.organisationId, organisationId))
    .returning({ id: ssoLinks.id });
  return gone.length;
}

/** Ends the sessions of the organisation's clients that single sign-on did not start; how many. */
export async function endNonSsoSessionsOfClients(db: Executor, organisationId: number): Promise<number> {
  const clients = db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organisationId, organisationId), eq(users.role, "client")));
  const gone = await db
    .delete(sessions)
    .where(and(eq(sessions.viaSso, false), inArray(sessions.userId, clients)))
    .returning({ id: sessions.id });
  return gone.length;
}

// ---- provisioning (features/scim): an organisation's `client` accounts ----

/**
 * The organisation's `client` accounts that still have their own e-mail, whatever their status. Erased
 * accounts and accounts whose e-mail provisioning released have an address under the reserved `.invalid`
 * top-level domain and are left out. Admins and superusers are never among them.
 */
function organisationClients(organisationId: number, email?: string): SQL | undefined {
  return and(
    eq(users.organisationId, organisationId),
    eq(users.role, "client"),
    sql`${users.email} not like '%.invalid'`,
    email === undefined ? undefined : eq(users.email, email),
  );
}

export async function findOrganisationClient(db: Executor, organisationId: number, id: number) {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.id, id), organisationClients(organisationId)));
  return row;
}

/** One page of the organisation's clients (see organisationClients), oldest first, optionally by e-mail or ids. */
export async function listOrganisationClients(
  db: Executor,
  organisationId: number,
  opts: { email?: string; ids?: number[]; limit: number; offset: number },
) {
  const where = and(
    organisationClients(organisationId, opts.email),
    opts.ids === undefined ? undefined : opts.ids.length ? inArray(users.id, opts.ids) : sql`false`,
  );
  const [total] = await db.select({ n: count() }).from(users).where(where);
  const rows =
    opts.limit === 0
      ? []
      : await db.select().from(users).where(where).orderBy(asc(users.id)).limit(opts.limit).offset(opts.offset);
  return { rows, total: total?.n ?? 0 };
}

/**
 * After an admin reactivated the organisation: its deactivated employers (superusers, not erased) wait as
 * `pending` again, so the admin activates each one deliberately (activate-account, the pending list);
 * its other accounts stay deactivated. Returns the ids made pending.
 */
export async function employersPendingAgain(db: Executor, organisationId: number): Promise<number[]> {
  const rows = await db
    .update(users)
    .set({ status: "pending", deactivatedAt: null, activatedAt: null })
    .where(
      and(
        eq(users.organisationId, organisationId),
        eq(users.role, "superuser"),
        eq(users.status, "deactivated"),
        sql`${users.email} not like '%.invalid'`,
      ),
    )
    .returning({ id: users.id });
  return rows.map((r) => r.id);
}

/** Reactivates a deactivated client of exactly this organisation; returns it, or undefined. */
export async function reactivateEmployee(db: Executor, organisationId: number, id: number) {
  const [row] = await db
    .update(users)
    .set({ status: "active", deactivatedAt: null })
    .where(
      and(
        eq(users.id, id),
        eq(users.organisationId, organisationId),
        eq(users.role, "client"),
        eq(users.status, "deactivated"),
      ),
    )
    .returning({ id: users.id });
  return row;
}

/** Gives an account a new (lower-case) e-mail; false when another account has it. */
export async function changeEmail(db: Executor, id: number, email: string): Promise<boolean> {
  try {
    const rows = await db.update(users).set({ email }).where(eq(users.id, id)).returning({ id: users.id });
    return rows.length > 0;
  } catch (err) {
    for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
      if ((e as { code?: unknown }).code === "23505") return false;
    }
    throw err;
  }
}

export async function setFullName(db: Executor, id: number, fullName: string) {
  await db.update(users).set({ fullName }).where(eq(users.id, id));
}

/**
 * Frees a deactivated account's e-mail for a new account (SCIM DELETE): the row keeps its id, name and
 * history, under an address of the reserved `.invalid` domain that can never sign in.
 */
export async function releaseEmail(db: Executor, id: number) {
  await db
    .update(users)
    .set({ email: `released-${id}@released.invalid` })
    .where(and(eq(users.id, id), eq(users.status, "deactivated")));
}
