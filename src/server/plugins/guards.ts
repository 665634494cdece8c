import type { Role } from "@shared/constants";
import { MESSAGES } from "@shared/messages";
import type { FastifyRequest } from "fastify";
import { forbidden, unauthorized } from "../lib/errors";
import type { SessionUser } from "../types";

/** preHandler: a signed-in, active user. */
export async function requireUser(request: FastifyRequest) {
  if (!request.user) throw unauthorized(MESSAGES.notSignedIn);
}

/** preHandler factory: a signed-in user with one of these roles (401 signed out, 403 wrong role). */
export function requireRole(...roles: Role[]) {
  return async (request: FastifyRequest) => {
    if (!request.user) throw unauthorized(MESSAGES.notSignedIn);
    if (!roles.includes(request.user.role)) throw forbidden(MESSAGES.forbidden);
  };
}

/** The signed-in user of a request that passed a guard. */
export function currentUser(request: FastifyRequest): SessionUser {
  if (!request.user) throw unauthorized(MESSAGES.notSignedIn);
  return request.user;
}
