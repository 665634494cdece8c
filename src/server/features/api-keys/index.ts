/** What other features use of API keys: the check of every /api/v1 call. */
import type { Feature } from "@server/features/feature";
import apiKeysRoutes from "./routes";
import { revokeKeysOfDeactivated } from "./service";

export { apiKeysErrors } from "./errors";
export { type KeyedStatement, keyedStatement, keyNameByPrefix } from "./repository";
export { type ApiKeyCaller, authenticate, authenticateAnd, authenticateLater, type PendingKey } from "./service";

export const apiKeysFeature: Feature = {
  name: "api-keys",
  purpose: "An organisation's API keys for /api/v1: created, listed, revoked, and checked on every call.",
  tables: ["api_keys"],
  erasureKeeps: {
    api_keys:
      "created_by: the key is the organisation's and keeps its creator by id only; an erased creator's keys are revoked (and audited) by onDeactivated right after the erasure",
  },
  routes: apiKeysRoutes,
  // A deactivated creator's keys are revoked, and the organisation's other superusers told.
  onDeactivated: revokeKeysOfDeactivated,
};
