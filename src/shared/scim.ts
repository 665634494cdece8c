import { z } from "zod";
import { RECENT_SIGN_IN_TEXT } from "./account-texts";

/** SCIM 2.0 (RFC 7643, RFC 7644): the provisioning API under /api/scim/v2 and its token on the employer dashboard. */

export const SCIM_PATH = "/api/scim/v2";

export const SCIM_SCHEMAS = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
  listResponse: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patchOp: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  serviceProviderConfig: "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig",
  resourceType: "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
  schema: "urn:ietf:params:scim:schemas:core:2.0:Schema",
} as const;

export const SCIM_LIMITS = {
  /** requests a minute with one organisation's token (429 with Retry-After beyond) */
  requestsPerMinute: 600,
  /** requests with a missing or wrong token per client address in 15 minutes before 429 */
  refusalsPerWindow: 10,
  refusalWindowMs: 15 * 60_000,
  /** a list answers at most this many users (RFC 7644 `count`) */
  maxPageSize: 200,
  defaultPageSize: 100,
  externalIdMaxLength: 255,
  namePartMaxLength: 100,
  /** operations of one PATCH */
  maxOperations: 100,
  filterMaxLength: 600,
} as const;

export const SCIM_TEXT = {
  title: "Provisioning (SCIM)",
  intro:
    "Let your identity provider (Okta, Microsoft Entra ID…) create, update and deactivate your employees' accounts. Paste the base URL and a token into its SCIM provisioning settings. When someone leaves, the provider deactivates them here: their sessions end and their codes stop verifying at once.",
  baseUrlLabel: "SCIM base URL",
  noToken: "No token yet: provisioning is off.",
  create: "Create token",
  replace: "Replace token",
  created: "Token created. Copy it now into your identity provider: it is shown only once.",
  tokenLabel: "SCIM token",
  createdAt: "Created",
  lastUsedAt: "Last used",
  neverUsed: "Never",
  revoke: "Revoke",
  revokeSubject: "the SCIM token",
  revoked: "Token revoked: your identity provider can no longer provision accounts.",
  loadFailed: "Failed to load the provisioning settings. Please try again.",
  actionFailed: "That did not work. Please try again.",
  // refusals (the dashboard's calls answer {message, code})
  needsRecentSignIn: RECENT_SIGN_IN_TEXT,
  signInAgain: "Sign out to sign in again",
  noTokenToRevoke: "There is no SCIM token to revoke.",
  tokenMailSubject: "A SCIM provisioning token was created for your organisation",
} as const;

export const scimStatusAnswer = z.object({
  baseUrl: z.string(),
  tokenCreatedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type ScimStatus = z.infer<typeof scimStatusAnswer>;

export const scimTokenAnswer = z.object({ token: z.string() });

// ---- the SCIM API's own shapes (documented in the OpenAPI description; the service checks every value) ----

const looseText = z.string().max(2000);

/** A User as a client sends it (POST, PUT). Unknown attributes (roles, locale, password…) are ignored. */
export const scimUserBody = z.looseObject({
  schemas: z.array(looseText).max(20).optional(),
  userName: z.unknown().optional(),
  externalId: z.unknown().optional(),
  name: z.unknown().optional(),
  displayName: z.unknown().optional(),
  emails: z.unknown().optional(),
  active: z.unknown().optional(),
});

/** A PATCH request (RFC 7644 3.5.2): `op` in any letter case, with a `path` or a value object. */
export const scimPatchBody = z.looseObject({
  schemas: z.array(looseText).max(20).optional(),
  Operations: z
    .array(
      z.looseObject({ op: z.string().max(20), path: z.string().max(500).optional(), value: z.unknown().optional() }),
    )
    .max(SCIM_LIMITS.maxOperations),
});

/** attributes= and excludedAttributes= (RFC 7644 3.4.2.5), also on the answers of POST, PUT and PATCH (3.9). */
export const scimAttributesQuery = z.object({
  attributes: z.string().max(1000).optional(),
  excludedAttributes: z.string().max(1000).optional(),
});

export const scimListQuery = z.object({
  filter: z.string().max(SCIM_LIMITS.filterMaxLength).optional(),
  startIndex: z.coerce.number().int().optional(),
  count: z.coerce.number().int().optional(),
  attributes: z.string().max(1000).optional(),
  excludedAttributes: z.string().max(1000).optional(),
});

export const scimUser = z.object({
  schemas: z.array(z.string()),
  id: z.string(),
  // Every other attribute may be left out: one without a value, or one left out by attributes= or
  // excludedAttributes= (RFC 7644 3.4.2.5).
  externalId: z.string().optional(),
  userName: z.string().optional(),
  name: z
    .object({ formatted: z.string().optional(), givenName: z.string().optional(), familyName: z.string().optional() })
    .optional(),
  displayName: z.string().optional(),
  emails: z
    .array(
      z.object({
        value: z.string().optional(),
        type: z.literal("work").optional(),
        primary: z.literal(true).optional(),
      }),
    )
    .optional(),
  active: z.boolean().optional(),
  meta: z
    .object({
      resourceType: z.literal("User").optional(),
      created: z.string().optional(),
      lastModified: z.string().optional(),
      location: z.string().optional(),
    })
    .optional(),
});
export type ScimUser = z.infer<typeof scimUser>;

export const scimListAnswer = z.object({
  schemas: z.array(z.string()),
  totalResults: z.number(),
  startIndex: z.number(),
  itemsPerPage: z.number(),
  Resources: z.array(scimUser),
});

export const scimErrorAnswer = z.object({
  schemas: z.array(z.string()),
  status: z.string(),
  scimType: z.string().optional(),
  detail: z.string(),
});

/** Discovery documents (ServiceProviderConfig, ResourceTypes, Schemas): JSON as RFC 7643 defines them. */
export const scimDocument = z.record(z.string(), z.unknown());
