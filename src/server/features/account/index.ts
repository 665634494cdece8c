/** The signed-in person's own account: password, sessions, passkeys, the data export. */
import type { Feature } from "@server/features/feature";
import { deletePasskeysOf, listPasskeys } from "./repository";
import accountRoutes from "./routes";

export const accountFeature: Feature = {
  name: "account",
  purpose: "The signed-in person's account: password, sessions, passkeys, data export.",
  tables: ["passkeys", "webauthn_challenges"],
  routes: accountRoutes,
  // Challenges live minutes and hold only the account's id; the passkeys go.
  erase: (tx, person) => deletePasskeysOf(tx, person.id),
  exportFor: async (deps, person) => ({
    passkeys: (await listPasskeys(deps.db, person.id)).map((k) => ({
      id: k.id,
      name: k.name,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      backedUp: k.backedUp,
    })),
  }),
};
