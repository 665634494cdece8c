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
  return listOf([userResourceType(base)]);
}

/** GET /ResourceTypes/:id (RFC 7644 4): the one resource type, User; else undefined. */
export function resourceType(publicUrl: string, id: string) {
  return id === "User" ? userResourceType(`${publicUrl}${SCIM_PATH}`) : undefined;
}

const listOf = <T>(resources: T[]) => ({
  schemas: [SCIM_SCHEMAS.listResponse],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

type AttributeFields = {
  type: string;
  required: boolean;
  mutability: string;
  returned: string;
  uniqueness: string;
  multiValued: boolean;
  caseExact: boolean;
  canonicalValues: string[];
  subAttributes: unknown[];
};

/** An attribute definition (RFC 7643 7): every one has a description. */
const attribute = (name: string, description: string, extra: Partial<AttributeFields> = {}) => ({
  name,
  type: "string",
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

function userSchema(base: string) {
  return {
    schemas: [SCIM_SCHEMAS.schema],
    id: SCIM_SCHEMAS.user,
    name: "User",
    description: "An employee's CallProof account",
    attributes: [
      attribute(
        "userName",
        "The employee's e-mail address, on the organisation's e-mail domain (ASCII). Unique; matched without regard to letter case, returned as written.",
        { required: true, uniqueness: "server" },
      ),
      attribute("externalId", "The identity provider's id of the employee.", { caseExact: true }),
      attribute("name", "The employee's name. A part never provisioned is derived from the account's full name.", {
        type: "complex",
        subAttributes: [
          attribute("formatted", "The full name, as it should be displayed."),
          attribute("givenName", "The given (first) name."),
          attribute("familyName", "The family (last) name."),
        ],
      }),
      attribute(
        "displayName",
        "The name shown to customers when a code is verified; else name.formatted, else the given and family names.",
      ),
      attribute("emails", "The account's one e-mail address: its userName. Every account has it.", {
        type: "complex",
        multiValued: true,
        required: true,
        subAttributes: [
          attribute("value", "The e-mail address (the userName).", { required: true }),
          attribute("type", "The kind of address: always work.", { canonicalValues: ["work"] }),
          attribute("primary", "Always true: the account has one address.", { type: "boolean" }),
        ],
      }),
      attribute("active", "Whether the account may sign in; false deactivates it at once (sessions and codes).", {
        type: "boolean",
      }),
    ],
    meta: meta(base, "Schema", `/Schemas/${SCIM_SCHEMAS.user}`),
  };
}

export function schemas(publicUrl: string) {
  return listOf([userSchema(`${publicUrl}${SCIM_PATH}`)]);
}

/** GET /Schemas/:id (RFC 7644 4): the User schema by its URN; else undefined. */
export function schema(publicUrl: string, id: string) {
  return id === SCIM_SCHEMAS.user ? userSchema(`${publicUrl}${SCIM_PATH}`) : undefined;
}
