import type { Db } from "@server/db/client";
import { hashPassword, isCommonPassword } from "@server/lib/passwords";
import { findUserByEmail, insertUser } from "./repository";

/** Creates a platform admin (active, verified) unless an account has that e-mail. Returns whether it did. */
export async function ensureAdmin(db: Db, email: string, password: string, now: Date): Promise<"created" | "exists"> {
  if (await findUserByEmail(db, email)) return "exists";
  if (await isCommonPassword(password)) throw new Error("That password is too common; choose a less predictable one.");
  const id = await insertUser(db, {
    email: email.trim().toLowerCase(),
    fullName: "Platform Admin",
    passwordHash: await hashPassword(password),
    role: "admin",
    status: "active",
    emailVerifiedAt: now,
    activatedAt: now,
    createdAt: now,
  });
  return id === undefined ? "exists" : "created";
}
