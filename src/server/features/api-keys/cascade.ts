import { onDeactivation } from "@server/features/users";
import fp from "fastify-plugin";
import { revokeKeysOfDeactivated } from "./service";

/** Adds the API keys' step to the users' deactivation cascade: a deactivated creator's keys are revoked. */
export default fp(
  async () => {
    onDeactivation(revokeKeysOfDeactivated);
  },
  { name: "api-keys-cascade" },
);
