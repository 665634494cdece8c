import type { Db } from "@server/db/client";
import { users } from "@server/db/schema";
import { hashPassword, isCommonPassword } from "@server/lib/passwords";
import { findUserByEmail } from "./users";

/** Creates a platform admin (active, verified) unless an account has that e-mail. Returns whether it did. */
export async function ensureAdmin(db: Db, email: string, password: string, now: Date): Promise<"created" | "exists"> {
  if (await findUserByEmail(db, email)) return "exists";
  if (await isCommonPassword(password)) throw new Error("That password is too common; choose a less predictable one.");
  const inserted = await db
    .insert(users)
    .values({
      email: email.trim().toLowerCase(),
      fullName: "Platform Admin",
      passwordHash: await hashPassword(password),
      role: "admin",
      status: "active",
      emailVerifiedAt: now,
      activatedAt: now,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: users.id });
  return inserted.length ? "created" : "exists";
}
