import { auditActor, signedIn } from "@server/context";
import { HttpError } from "@server/lib/errors";
import type { AuditAction } from "@shared/audit-actions";
import type { Role } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { MESSAGES } from "@shared/messages";
import type { FastifyRequest } from "fastify";

/** preHandler: a signed-in, active user. */
export async function requireUser(request: FastifyRequest) {
  signedIn(request.actor);
}

/** preHandler factory: a signed-in user with one of these roles (401 signed out, 403 wrong role). */
export function requireRole(...roles: Role[]) {
  const guard = async (request: FastifyRequest) => {
    if (!roles.includes(signedIn(request.actor).role)) {
      throw new HttpError(403, ERROR_CODES.forbidden, MESSAGES.forbidden);
    }
  };
  // The roles, for the OpenAPI document's "who may call" (plugins/openapi.ts).
  return Object.assign(guard, { roles });
}

/**
 * preHandler for an admin or employer action: requireRole, and a signed-in user with the wrong role
 * is recorded as a denied attempt of `action` (signed-out requests carry no actor and are not recorded).
 */
export function requireRoleAudited(action: AuditAction, ...roles: Role[]) {
  const guard = requireRole(...roles);
  return Object.assign(
    async (request: FastifyRequest) => {
      try {
        await guard(request);
      } catch (err) {
        if (request.user) {
          await request.server.deps.audit.record({
            ...auditActor(request.actor),
            action,
            outcome: "denied",
            organisationId: request.user.organisationId,
            target: (request.params as { id?: string } | undefined)?.id ?? null,
            detail: { reason: "role", role: request.user.role },
          });
        }
        throw err;
      }
    },
    { roles },
  );
}
