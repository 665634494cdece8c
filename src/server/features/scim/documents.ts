import { SCIM_LIMITS, SCIM_PATH, SCIM_SCHEMAS } from "@shared/scim";

/** The discovery documents of RFC 7643 (sections 5–7), for the features and attributes CallProof supports. */

const meta = (base: string, resourceType: string, path: string) => ({ resourceType, location: `${base}${path}` });

export function serviceProviderConfig(publicUrl: string) {
  const base = `${publicUrl}${SCIM_PATH}`;
  return {
    schemas: [SCIM_SCHEMAS.serviceProviderConfig],
    documentationUri: `${publicUrl}/api/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_LIMITS.maxPageSize },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "The token created on the CallProof employer dashboard, as Authorization: Bearer <token>.",
        primary: true,
      },
    ],
    meta: meta(base, "ServiceProviderConfig", "/ServiceProviderConfig"),
  };
}

const userResourceType = (base: string) => ({
  schemas: [SCIM_SCHEMAS.resourceType],
  id: "User",
  name: "User",
  endpoint: "/Users",
  description: "An employee's CallProof account",
  schema: SCIM_SCHEMAS.user,
  schemaExtensions: [],
  meta: meta(base, "ResourceType", "/ResourceTypes/User"),
});

export function resourceTypes(publicUrl: string) {
  const base = `${publicUrl}${SCIM_PATH}`;
  return {
    schemas: [SCIM_SCHEMAS.listResponse],
    totalResults: 1,
    startIndex: 1,
    itemsPerPage: 1,
    Resources: [userResourceType(base)],
  };
}

const attribute = (
  name: string,
  extra: Partial<{
    type: string;
    required: boolean;
    mutability: string;
    uniqueness: string;
    multiValued: boolean;
    caseExact: boolean;
    description: string;
    subAttributes: unknown[];
  }> = {},
) => ({
  name,
  type: "string",
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

export function schemas(publicUrl: string) {
  const base = `${publicUrl}${SCIM_PATH}`;
  const user = {
    schemas: [SCIM_SCHEMAS.schema],
    id: SCIM_SCHEMAS.user,
    name: "User",
    description: "An employee's CallProof account",
    attributes: [
      attribute("userName", {
        required: true,
        uniqueness: "server",
        description: "The employee's e-mail address, on the organisation's e-mail domain (ASCII).",
      }),
      attribute("externalId", { caseExact: true, description: "The identity provider's id of the employee." }),
      attribute("name", {
        type: "complex",
        subAttributes: [attribute("formatted"), attribute("givenName"), attribute("familyName")],
      }),
      attribute("displayName", { description: "The name shown to customers when a code is verified." }),
      attribute("emails", {
        type: "complex",
        multiValued: true,
        description: "The one address of the account: its userName.",
        subAttributes: [attribute("value"), attribute("primary", { type: "boolean" })],
      }),
      attribute("active", { type: "boolean", description: "false deactivates the account at once." }),
    ],
    meta: meta(base, "Schema", `/Schemas/${SCIM_SCHEMAS.user}`),
  };
  return { schemas: [SCIM_SCHEMAS.listResponse], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [user] };
}
