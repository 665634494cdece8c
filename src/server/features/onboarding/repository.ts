import type { Executor } from "@server/db/client";
import { employerInvitations } from "@server/db/schema";
import { and, eq, gt, isNull } from "drizzle-orm";

export type InvitationRow = typeof employerInvitations.$inferSelect;

/** An invitation that can still be used (not used, not expired). */
export async function findLiveInvitation(
  db: Executor,
  codeHash: string,
  now: Date,
): Promise<InvitationRow | undefined> {
  const [row] = await db
    .select()
    .from(employerInvitations)
    .where(
      and(
        eq(employerInvitations.codeHash, codeHash),
        isNull(employerInvitations.usedAt),
        gt(employerInvitations.expiresAt, now),
      ),
    );
  return row;
}

/** Ends every still-usable invitation of an e-mail (a new invitation replaces them). */
export async function expireInvitationsOf(db: Executor, email: string, now: Date) {
  await db
    .update(employerInvitations)
    .set({ expiresAt: now })
    .where(
      and(
        eq(employerInvitations.email, email),
        isNull(employerInvitations.usedAt),
        gt(employerInvitations.expiresAt, now),
      ),
    );
}

export async function insertInvitation(
  db: Executor,
  values: { email: string; codeHash: string; createdBy: number; createdAt: Date; expiresAt: Date },
) {
  await db.insert(employerInvitations).values(values);
}

/** Uses an invitation up; only one of several racing callers gets the row back. */
export async function claimInvitation(db: Executor, id: number, now: Date) {
  const [row] = await db
    .update(employerInvitations)
    .set({ usedAt: now })
    .where(
      and(eq(employerInvitations.id, id), isNull(employerInvitations.usedAt), gt(employerInvitations.expiresAt, now)),
    )
    .returning({ id: employerInvitations.id });
  return row;
}

export async function setInvitationUser(db: Executor, id: number, userId: number) {
  await db.update(employerInvitations).set({ usedBy: userId }).where(eq(employerInvitations.id, id));
}

/** Replaces the e-mail of a person's invitations (erasure); the invitations stay, without naming them. */
export async function eraseInvitationsOf(db: Executor, email: string, erasedEmail: string) {
  await db.update(employerInvitations).set({ email: erasedEmail }).where(eq(employerInvitations.email, email));
}
