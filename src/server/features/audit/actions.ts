import type { AuditEvent } from "@server/lib/audit";
import { requireRole } from "@server/plugins/guards";
import type { App } from "@server/types";
import type { Role } from "@shared/constants";
import type { FastifyRequest } from "fastify";

/** The audit fields that come from the request: the signed-in actor (if any) and the client IP. */
export function actorOf(request: FastifyRequest): Pick<AuditEvent, "actorId" | "actorEmail" | "ip"> {
  return { actorId: request.user?.id ?? null, actorEmail: request.user?.email ?? null, ip: request.ip };
}

/**
 * preHandler for an admin or employer action: requireRole, and a signed-in user with the wrong role
 * is recorded as a denied attempt of `action` (signed-out requests carry no actor and are not recorded).
 */
export function requireRoleAudited(app: App, action: string, ...roles: Role[]) {
  const guard = requireRole(...roles);
  return async (request: FastifyRequest) => {
    try {
      await guard(request);
    } catch (err) {
      if (request.user) {
        await app.audit.record({
          ...actorOf(request),
          action,
          outcome: "denied",
          organisationId: request.user.organisationId,
          target: (request.params as { id?: string } | undefined)?.id ?? null,
          detail: { reason: "role", role: request.user.role },
        });
      }
      throw err;
    }
  };
}
