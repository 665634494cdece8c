import type { Deps } from "@server/context";
import { expireLiveCodesOf } from "@server/features/codes";
import {
  findOrganisation,
  findOrganisationOwningDomain,
  type OrganisationRow,
  organisationIsActive,
} from "@server/features/organisations";
import { isHostUnder } from "@server/features/sites";
import * as users from "@server/features/users";
import {
  bearerCredential,
  bearerHash,
  bearerLookup,
  issueBearer,
  SCIM_TOKEN_BEARER,
  verifyBearer,
} from "@server/lib/bearer";
import { randomToken } from "@server/lib/crypto";
import { hashPassword } from "@server/lib/passwords";
import { auditsRefusal } from "@server/lib/rate-limit";
import { AUDIT_ACTIONS, type AuditAction } from "@shared/audit-actions";
import { SCIM_LIMITS, SCIM_PATH, SCIM_SCHEMAS, type ScimUser } from "@shared/scim";
import { normaliseEmail } from "@shared/validation";
import { scimErrors } from "./errors";
import {
  applyPatch,
  type Draft,
  draftFromBody,
  effectiveNames,
  fullNameOf,
  NAME_ATTRIBUTES,
  type NameAttribute,
  parseFilter,
  project,
  readProjection,
} from "./protocol";
import * as repo from "./repository";

/**
 * The SCIM API's rules: who the bearer token speaks for, and the organisation's `client` accounts as
 * SCIM Users. Deactivation is the users home's cascade (sessions end at once; the code look-up joins an
 * active owner, so live codes stop with the same commit).
 */

/** Who a SCIM request speaks for: the token's organisation (active), and the request's address. */
export type ScimClient = { organisation: OrganisationRow; tokenId: string; ip: string };

/** The calling request as the service needs it. */
export type ScimRequest = { authorization: string | undefined; ip: string; clientKey: string };

/** The audit fields of an action SCIM takes (actor `scim`). */
function scimActor(client: ScimClient) {
  return { actorId: null, actorEmail: "scim", organisationId: client.organisation.id, ip: client.ip };
}

/**
 * Authenticates a SCIM request: its token, hashed and compared in constant time, must be its organisation's
 * current one, and the organisation must be active. A refusal (401) counts against the client address
 * before anything else is written: beyond 10 in 15 minutes it is 429; refusals are audited sparsely (the
 * 1st, 10th, 100th… in a row of an address).
 * An accepted token counts against its organisation's 600 requests a minute.
 */
export async function authenticate(deps: Deps, request: ScimRequest): Promise<ScimClient> {
  const now = deps.clock.now();
  const token = bearerCredential(request.authorization);
  const tokenId = bearerLookup(SCIM_TOKEN_BEARER, token);
  const row = tokenId ? await repo.findTokenById(deps.db, tokenId) : undefined;
  // a token created before the HMAC scheme is kept as its plain SHA-256 until it is used or rotated (docs/scim.md)
  const verdict = verifyBearer(deps.config.appSecret, SCIM_TOKEN_BEARER, token, row?.tokenHash, {
    acceptLegacySha256: true,
  });
  const hashMatches = verdict !== null;
  let refusal: string | null = null;
  let organisation: OrganisationRow | undefined;
  if (!token) refusal = "no token";
  else if (!row || !hashMatches) refusal = "wrong token";
  else {
    organisation = await findOrganisation(deps.db, row.organisationId);
    if (!organisationIsActive(organisation)) {
      refusal = "organisation deactivated";
    }
  }
  if (refusal || !row || !organisation) {
    const limit = await deps.limits.hit(
      `scim-refused:ip:${request.clientKey}`,
      SCIM_LIMITS.refusalsPerWindow,
      SCIM_LIMITS.refusalWindowMs,
      now,
    );
    // A counter that never lets through: its `refused` is how many refusals this address had in a row.
    const seen = await deps.limits.hit(`scim-refusals:ip:${request.clientKey}`, 0, SCIM_LIMITS.refusalWindowMs, now);
    if (auditsRefusal(seen.refused)) {
      await deps.audit.record({
        action: AUDIT_ACTIONS.scimAuth,
        actorEmail: "scim",
        organisationId: refusal === "organisation deactivated" ? (row?.organisationId ?? null) : null,
        ip: request.ip,
        outcome: "denied",
        detail: { reason: limit.allowed ? (refusal ?? "wrong token") : "throttled", refused: seen.refused },
      });
    }
    if (!limit.allowed) throw scimErrors.tooManyRequests(limit.retryAfterSeconds);
    throw scimErrors.unauthorized();
  }
  const allowance = await deps.limits.hit(`scim:org:${organisation.id}`, SCIM_LIMITS.requestsPerMinute, 60_000, now);
  if (!allowance.allowed) {
    if (auditsRefusal(allowance.refused)) {
      await deps.audit.record({
        action: AUDIT_ACTIONS.scimAuth,
        actorEmail: "scim",
        organisationId: organisation.id,
        ip: request.ip,
        outcome: "denied",
        detail: { reason: "throttled", refused: allowance.refused },
      });
    }
    throw scimErrors.tooManyRequests(allowance.retryAfterSeconds);
  }
  if (verdict === "legacy" && token) {
    await repo.rehashToken(
      deps.db,
      row.tokenId,
      row.tokenHash,
      bearerHash(deps.config.appSecret, SCIM_TOKEN_BEARER, token),
    );
  }
  await repo.touchToken(deps.db, row.tokenId, now);
  return { organisation, tokenId: row.tokenId, ip: request.ip };
}

/**
 * A new token (lib/bearer.ts, as API keys): its public id (to find its row), the token shown once and the
 * HMAC of it under APP_SECRET, the only form stored.
 */
export function newToken(appSecret: string) {
  const { credential, lookup, hash } = issueBearer(appSecret, SCIM_TOKEN_BEARER);
  return { tokenId: lookup, token: credential, tokenHash: hash };
}

// ---- Users as SCIM shows them ----

type Loaded = { user: users.UserRow; scim: repo.ScimUserRow | undefined };

function draftOf({ user, scim }: Loaded): Draft {
  const asSent = scim?.userName;
  return {
    userName: user.email,
    userNameAsSent: asSent && asSent.toLowerCase() === user.email ? asSent : user.email,
    externalId: scim?.externalId ?? null,
    givenName: scim?.givenName ?? null,
    familyName: scim?.familyName ?? null,
    formattedName: scim?.formattedName ?? null,
    displayName: scim?.displayName ?? null,
    active: user.status === "active",
    provisioned: (scim?.provisioned ?? []).filter((a): a is NameAttribute =>
      (NAME_ATTRIBUTES as readonly string[]).includes(a),
    ),
  };
}

/** The User as SCIM shows it: attributes without a value are left out (RFC 7643 2.5). */
function toScimUser(deps: Deps, loaded: Loaded): ScimUser {
  const { user, scim } = loaded;
  const times = [user.createdAt, scim?.updatedAt, user.activatedAt, user.deactivatedAt].filter(
    (d): d is Date => d instanceof Date,
  );
  const lastModified = new Date(Math.max(...times.map((d) => d.getTime())));
  const draft = draftOf(loaded);
  const names = effectiveNames(draft, user.fullName);
  const name = Object.fromEntries(
    (["formatted", "givenName", "familyName"] as const).flatMap((k) => (names[k] ? [[k, names[k]]] : [])),
  );
  return {
    schemas: [SCIM_SCHEMAS.user],
    id: String(user.id),
    ...(draft.externalId ? { externalId: draft.externalId } : {}),
    userName: draft.userNameAsSent,
    ...(Object.keys(name).length > 0 ? { name } : {}),
    ...(names.displayName ? { displayName: names.displayName } : {}),
    emails: [{ value: user.email, type: "work", primary: true }],
    active: user.status === "active",
    meta: {
      resourceType: "User",
      created: user.createdAt.toISOString(),
      lastModified: lastModified.toISOString(),
      location: `${deps.config.publicUrl}${SCIM_PATH}/Users/${user.id}`,
    },
  };
}

/** One of the organisation's client accounts, unless SCIM deleted it or it was erased: else 404. */
async function load(deps: Deps, client: ScimClient, idText: string): Promise<Loaded> {
  if (!/^[1-9][0-9]{0,9}$/.test(idText) || Number(idText) > 2_147_483_647) throw scimErrors.notFound();
  const user = await users.findOrganisationClient(deps.db, client.organisation.id, Number(idText));
  if (!user) throw scimErrors.notFound();
  const scim = await repo.findScimUser(deps.db, user.id);
  if (scim?.deletedAt || scim?.erasedAt) throw scimErrors.notFound();
  return { user, scim };
}

/** The userName must be on the organisation's e-mail domain (or under it) and belong to no other organisation. */
async function checkDomain(deps: Deps, client: ScimClient, userName: string) {
  const domain = userName.slice(userName.lastIndexOf("@") + 1);
  const own = client.organisation.domain;
  const owner = isHostUnder(domain, own) ? await findOrganisationOwningDomain(deps.db, domain) : undefined;
  if (owner?.id !== client.organisation.id) {
    throw scimErrors.invalidValue(`userName must be an e-mail address at ${own}.`);
  }
}

async function record(
  deps: Deps,
  client: ScimClient,
  action: AuditAction,
  outcome: "success" | "failure" | "denied",
  target: number | null,
  detail?: Record<string, unknown>,
) {
  await deps.audit.record({
    ...scimActor(client),
    action,
    outcome,
    target: target === null ? null : String(target),
    ...(detail ? { detail } : {}),
  });
}

/** attributes= and excludedAttributes= of a request (RFC 7644 3.4.2.5, 3.9). */
export type Projection = { attributes?: string | undefined; excludedAttributes?: string | undefined };

export async function getUser(deps: Deps, client: ScimClient, id: string, query: Projection = {}) {
  const projection = readProjection(query);
  return project(toScimUser(deps, await load(deps, client, id)), projection);
}

/** GET /Users: the organisation's client accounts, filtered by userName or externalId, paged from 1. */
export async function listUsers(
  deps: Deps,
  client: ScimClient,
  query: { filter?: string; startIndex?: number; count?: number } & Projection,
) {
  const filter = parseFilter(query.filter);
  const projection = readProjection(query);
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(SCIM_LIMITS.maxPageSize, Math.max(0, query.count ?? SCIM_LIMITS.defaultPageSize));
  const organisationId = client.organisation.id;
  const page = { limit: count, offset: startIndex - 1 };
  const { rows, total } =
    filter?.attribute === "userName"
      ? await users.listOrganisationClients(deps.db, organisationId, {
          // The shared e-mail rule; a value it refuses (a look-alike, a NUL) matches nobody.
          email: normaliseEmail(filter.value) ?? "",
          ...page,
        })
      : filter?.attribute === "externalId"
        ? await users.listOrganisationClients(deps.db, organisationId, {
            ids: await repo.userIdsByExternalId(deps.db, organisationId, filter.value),
            ...page,
          })
        : await users.listOrganisationClients(deps.db, organisationId, page);
  const scimRows = new Map(
    (
      await repo.scimUsersOf(
        deps.db,
        rows.map((r) => r.id),
      )
    ).map((s) => [s.userId, s]),
  );
  const resources = rows
    .map((user) => ({ user, scim: scimRows.get(user.id) }))
    .filter(({ scim }) => !scim?.deletedAt && !scim?.erasedAt)
    .map((loaded) => project(toScimUser(deps, loaded), projection));
  return {
    schemas: [SCIM_SCHEMAS.listResponse],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** POST /Users: a new, verified `client` account of the organisation, without a password (SSO or "Forgot your password?"). */
export async function createUser(
  deps: Deps,
  client: ScimClient,
  body: Record<string, unknown>,
  query: Projection = {},
) {
  readProjection(query);
  const draft = draftFromBody(body, null);
  await checkDomain(deps, client, draft.userName);
  const fullName = fullNameOf(draft, draft.userName.slice(0, draft.userName.indexOf("@")));
  if (await users.findUserByEmail(deps.db, draft.userName)) {
    await record(deps, client, AUDIT_ACTIONS.scimCreateUser, "failure", null, { reason: "userName taken" });
    throw scimErrors.uniqueness();
  }
  const now = deps.clock.now();
  // No password anyone knows: the account signs in through SSO, or sets one with "Forgot your password?".
  const passwordHash = await hashPassword(randomToken(32));
  const id = await deps.db.transaction(async (tx) => {
    const userId = await users.insertUser(tx, {
      email: draft.userName,
      fullName,
      passwordHash,
      role: "client",
      organisationId: client.organisation.id,
      emailVerifiedAt: now,
      status: draft.active ? "active" : "deactivated",
      createdAt: now,
      activatedAt: now,
      deactivatedAt: draft.active ? null : now,
    });
    if (userId === undefined) return undefined;
    await repo.saveScimUser(tx, {
      ...attributesOf(draft),
      userId,
      organisationId: client.organisation.id,
      deactivatedByScim: !draft.active,
      now,
    });
    return userId;
  });
  if (id === undefined) {
    await record(deps, client, AUDIT_ACTIONS.scimCreateUser, "failure", null, { reason: "userName taken" });
    throw scimErrors.uniqueness();
  }
  await record(deps, client, AUDIT_ACTIONS.scimCreateUser, "success", id, { active: draft.active });
  const created = toScimUser(deps, await load(deps, client, String(id)));
  return {
    location: `${deps.config.publicUrl}${SCIM_PATH}/Users/${id}`,
    user: project(created, readProjection(query)),
  };
}

/** PUT /Users/:id: the whole user replaced (externalId and active kept when left out). */
export async function replaceUser(
  deps: Deps,
  client: ScimClient,
  id: string,
  body: Record<string, unknown>,
  query: Projection = {},
) {
  readProjection(query);
  const loaded = await load(deps, client, id);
  await commit(deps, client, loaded, draftFromBody(body, draftOf(loaded)));
  return getUser(deps, client, id, query);
}

/** PATCH /Users/:id */
export async function patchUser(
  deps: Deps,
  client: ScimClient,
  id: string,
  body: { schemas?: string[]; Operations: Record<string, unknown>[] },
  query: Projection = {},
) {
  readProjection(query);
  const loaded = await load(deps, client, id);
  await commit(deps, client, loaded, applyPatch(draftOf(loaded), body));
  return getUser(deps, client, id, query);
}

/**
 * Writes the difference between an account and its new Draft. Every check runs before the first write,
 * so a refused request changes nothing. A deactivation runs first; a reactivation last, and only for an
 * account SCIM deactivated.
 */
async function commit(deps: Deps, client: ScimClient, loaded: Loaded, draft: Draft) {
  const { user, scim } = loaded;
  const before = draftOf(loaded);
  const emailChanges = draft.userName !== before.userName;
  if (emailChanges) await checkDomain(deps, client, draft.userName);
  const fullName = fullNameOf(draft, user.fullName, user.fullName);
  const reactivates = !before.active && draft.active;
  if (reactivates && !scim?.deactivatedByScim) {
    await record(deps, client, AUDIT_ACTIONS.scimReactivateUser, "denied", user.id, {
      reason: "not deactivated by SCIM",
    });
    throw scimErrors.mutability(
      "This account was deactivated in CallProof, not by provisioning: SCIM cannot reactivate it.",
    );
  }
  if (emailChanges && (await users.findUserByEmail(deps.db, draft.userName))) {
    await record(deps, client, AUDIT_ACTIONS.scimUpdateUser, "failure", user.id, { reason: "userName taken" });
    throw scimErrors.uniqueness();
  }

  if (before.active && !draft.active) await deactivate(deps, client, loaded);

  const now = deps.clock.now();
  // A name attribute changed when what SCIM shows of it changed (a derived value cleared is a change).
  const shownBefore = effectiveNames(before, user.fullName);
  const shownAfter = effectiveNames(draft, user.fullName);
  const changed = [
    ...(draft.externalId !== before.externalId ? ["externalId"] : []),
    ...(
      [
        ["givenName", "givenName"],
        ["familyName", "familyName"],
        ["formatted", "formattedName"],
        ["displayName", "displayName"],
      ] as const
    ).flatMap(([shown, field]) => (shownBefore[shown] !== shownAfter[shown] ? [field] : [])),
  ];
  // Bookkeeping only (not audited as a change): the letter case of the userName, which parts were written.
  const bookkeeping =
    draft.userNameAsSent !== before.userNameAsSent ||
    [...draft.provisioned].sort().join() !== [...before.provisioned].sort().join();
  if (emailChanges || changed.length > 0 || fullName !== user.fullName || bookkeeping) {
    const ok = await deps.db.transaction(async (tx) => {
      if (emailChanges) {
        if (!(await users.changeEmail(tx, user.id, draft.userName))) return false;
        // Links and codes mailed to the old address stop working.
        await users.afterEmailChange(deps, tx, user.id);
      }
      if (fullName !== user.fullName) await users.setFullName(tx, user.id, fullName);
      await repo.saveScimUser(tx, {
        ...attributesOf(draft),
        userId: user.id,
        organisationId: client.organisation.id,
        now,
      });
      return true;
    });
    if (!ok) {
      await record(deps, client, AUDIT_ACTIONS.scimUpdateUser, "failure", user.id, { reason: "userName taken" });
      throw scimErrors.uniqueness();
    }
    const fields = [
      ...(emailChanges ? ["userName"] : []),
      ...changed,
      ...(fullName !== user.fullName ? ["fullName"] : []),
    ];
    if (fields.length > 0) {
      await record(deps, client, AUDIT_ACTIONS.scimUpdateUser, "success", user.id, { changed: fields });
    }
  }

  if (reactivates) {
    await deps.db.transaction(async (tx) => {
      // Sign-in comes back; the codes it had before do not.
      await expireLiveCodesOf(tx, user.id, now);
      await users.reactivateEmployee(tx, client.organisation.id, user.id);
      await repo.setDeactivatedByScim(tx, user.id, false, now);
    });
    await record(deps, client, AUDIT_ACTIONS.scimReactivateUser, "success", user.id);
  }
}

function attributesOf(draft: Draft): repo.ScimAttributes {
  return {
    userName: draft.userNameAsSent,
    provisioned: draft.provisioned,
    externalId: draft.externalId,
    givenName: draft.givenName,
    familyName: draft.familyName,
    formattedName: draft.formattedName,
    displayName: draft.displayName,
  };
}

/** The employer's deactivation cascade (users home): sessions end and live codes stop in one commit. */
async function deactivate(deps: Deps, client: ScimClient, loaded: Loaded) {
  const { user } = loaded;
  const now = deps.clock.now();
  await users.deactivateEmployee(deps.db, client.organisation.id, user.id, now);
  await repo.saveScimUser(deps.db, {
    ...attributesOf(draftOf(loaded)),
    userId: user.id,
    organisationId: client.organisation.id,
    deactivatedByScim: true,
    now,
  });
  await record(deps, client, AUDIT_ACTIONS.scimDeactivateUser, "success", user.id);
  await users.afterDeactivation(deps, [user.id]);
}

/**
 * DELETE /Users/:id: deactivated (the full cascade) and its userName freed for a new account; the row
 * stays for the audit log, and SCIM answers 404 for it from now on.
 */
export async function deleteUser(deps: Deps, client: ScimClient, id: string) {
  const loaded = await load(deps, client, id);
  const { user } = loaded;
  if (user.status === "active") await deactivate(deps, client, loaded);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    if (!(await repo.findScimUser(tx, user.id))) {
      await repo.saveScimUser(tx, {
        ...attributesOf(draftOf(loaded)),
        userId: user.id,
        organisationId: client.organisation.id,
        now,
      });
    }
    await users.releaseEmail(tx, user.id);
    await repo.markDeleted(tx, user.id, user.email, now);
  });
  await record(deps, client, AUDIT_ACTIONS.scimDeleteUser, "success", user.id);
}
