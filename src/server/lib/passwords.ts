import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import argon2 from "argon2";
import { HttpError } from "./errors";

/** OWASP's argon2id minimum: 19 MiB, 2 iterations, 1 lane. argon2 runs on libuv's thread pool, off the event loop. */
const OPTIONS = { type: argon2.argon2id, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** Spends the time of a real check, so an unknown e-mail answers as slowly as a wrong password. */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword("dummy-Password-1!");
  await verifyPassword(await dummyHash, password);
  return false;
}

let common: Promise<Set<string>> | undefined;
/** Whether the password is among ~49,000 commonly used ones (zxcvbn-ts's list), ignoring case. */
export async function isCommonPassword(password: string): Promise<boolean> {
  // A CommonJS package: the build's chunk for it has module.exports as its default export only.
  common ??= import("@zxcvbn-ts/language-common").then((m) => {
    const { dictionary } = m.default ?? m;
    return new Set((dictionary as Record<string, string[]>)["passwords-common"] ?? []);
  });
  return (await common).has(password.toLowerCase());
}

/** Refuses a common new password (400); the strength rules ran before, in the body schema. */
export async function assertAcceptablePassword(password: string) {
  if (await isCommonPassword(password))
    throw new HttpError(400, ERROR_CODES.passwordTooCommon, MESSAGES.passwordTooCommon);
}
