/** What other features use of identity codes: generation as the employee, live status (the integration API). */
import type { Feature } from "@server/features/feature";
import { watchCodeGuessing } from "./guessing";
import codeEvents from "./live";
import { codesOfUser, deleteCodesExpiredBefore, deleteCodesOf } from "./repository";
import codesRoutes from "./routes";

export { codesErrors } from "./errors";
export { openStatusStream } from "./live";
export { expireLiveCodesOf } from "./repository";
export { generateWords, organisationCodeStatus } from "./service";

const DAY_MS = 24 * 60 * 60_000;

export const codesFeature: Feature = {
  name: "codes",
  purpose: "Identity codes: generation, the widget's look-up, live status.",
  tables: ["identity_codes"],
  plugins: [codeEvents],
  routes: codesRoutes,
  // Codes are deleted a day after they expire.
  sweep: (deps, now) => deleteCodesExpiredBefore(deps.db, new Date(now.getTime() - DAY_MS)),
  // The global failure budget of code guessing: an alert in the log, nobody refused.
  jobs: [{ name: "code guessing watch", everyMs: 20_000, run: (app) => watchCodeGuessing(app.deps) }],
  erase: (tx, person) => deleteCodesOf(tx, person.id),
  // No words: when each code was made, and whether and where it was verified.
  exportFor: async (deps, person) => {
    const now = deps.clock.now();
    return {
      codes: (await codesOfUser(deps.db, person.id)).map((c) => ({
        id: c.id,
        createdAt: c.createdAt.toISOString(),
        expiresAt: c.expiresAt.toISOString(),
        status: (c.usedAt ? "verified" : c.expiresAt.getTime() <= now.getTime() ? "expired" : "live") as
          | "verified"
          | "expired"
          | "live",
        verifiedAt: c.usedAt?.toISOString() ?? null,
        site: c.verifiedHost,
      })),
    };
  },
};
