/** What other features use of API keys: the check of every /api/v1 call, and the deactivation step. */
export { apiKeysErrors } from "./errors";
export { keyNameByPrefix } from "./repository";
export { type ApiKeyCaller, authenticate, revokeKeysOfDeactivated } from "./service";
