import { SCIM_LIMITS, SCIM_SCHEMAS } from "@shared/scim";
import { isAsciiEmailText, nameSchema, normaliseEmail } from "@shared/validation";
import { scimErrors } from "./errors";

/**
 * The SCIM dialects as Okta and Microsoft Entra ID speak them, read into one shape (pure functions):
 * filters, User bodies and PATCH operations. What CallProof keeps of a User is a `Draft`.
 */

export type Draft = {
  /** the account's e-mail, lower-case */
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formattedName: string | null;
  displayName: string | null;
  active: boolean;
};

// ---- values ----

const CONTROL = /\p{C}/u;

/** A boolean as clients send it: true/false, or Entra ID's "True"/"False" strings in any case. */
export function readBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const v = value.trim().toLowerCase();
    if (v === "true") return true;
    if (v === "false") return false;
  }
  throw scimErrors.invalidValue(`${attribute} must be true or false.`);
}

/** The userName: an e-mail address in ASCII, lower-cased (the organisation's domain is checked by the service). */
export function readUserName(value: unknown): string {
  if (typeof value !== "string") throw scimErrors.invalidValue("userName is required and must be an e-mail address.");
  // ASCII as it came, before trimming or lower-casing (the shared e-mail rule: "\u212A" lower-cases to "k").
  if (!isAsciiEmailText(value)) throw scimErrors.invalidValue("userName must be an e-mail address in ASCII.");
  const email = normaliseEmail(value);
  if (!email) throw scimErrors.invalidValue("userName must be an e-mail address.");
  return email;
}

/** A name part or displayName: empty or absent is null; else 1–100 characters without control characters. */
export function readName(value: unknown, attribute: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "string") throw scimErrors.invalidValue(`${attribute} must be a string.`);
  if (value.trim() === "") return null;
  const parsed = nameSchema(attribute).safeParse(value);
  if (!parsed.success) throw scimErrors.invalidValue(parsed.error.issues[0]?.message ?? `${attribute} is not valid.`);
  return parsed.data;
}

export function readExternalId(value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value !== "string") throw scimErrors.invalidValue("externalId must be a string.");
  if (value.length > SCIM_LIMITS.externalIdMaxLength || CONTROL.test(value)) {
    throw scimErrors.invalidValue(
      `externalId must be at most ${SCIM_LIMITS.externalIdMaxLength} characters without control characters.`,
    );
  }
  return value;
}

/** The address of an `emails` array: the primary one, else the work one, else the first. */
function emailOf(value: unknown): unknown {
  if (!Array.isArray(value)) throw scimErrors.invalidValue("emails must be an array.");
  const items = value.filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null);
  const chosen =
    items.find((v) => v.primary === true || String(v.primary).toLowerCase() === "true") ??
    items.find((v) => typeof v.type === "string" && v.type.toLowerCase() === "work") ??
    items[0];
  return chosen?.value;
}

/** The full name shown on a caller card: displayName, else the formatted name, else given and family names. */
export function fullNameOf(draft: Draft, fallback: string): string {
  const joined = [draft.givenName, draft.familyName].filter(Boolean).join(" ");
  const name = draft.displayName ?? draft.formattedName ?? (joined || null) ?? fallback;
  const parsed = nameSchema("The name").safeParse(name);
  if (!parsed.success) throw scimErrors.invalidValue(parsed.error.issues[0]?.message ?? "The name is not valid.");
  return parsed.data;
}

// ---- User bodies (POST, PUT) ----

/**
 * A User body read into a Draft. POST and PUT replace the name parts and displayName (absent: none);
 * externalId and active keep `current`'s values when absent. `emails` is read only when userName is
 * absent: the account has one address, its userName. Anything else a client sends (password, roles,
 * locale, groups, enterprise attributes) is ignored.
 */
export function draftFromBody(body: Record<string, unknown>, current: Draft | null): Draft {
  if (Array.isArray(body.schemas) && !body.schemas.includes(SCIM_SCHEMAS.user)) {
    throw scimErrors.invalidSyntax(`schemas must include ${SCIM_SCHEMAS.user}.`);
  }
  const name = body.name;
  if (name !== undefined && name !== null && (typeof name !== "object" || Array.isArray(name))) {
    throw scimErrors.invalidValue("name must be an object.");
  }
  const n = (name ?? {}) as Record<string, unknown>;
  const userNameValue = body.userName ?? (body.emails === undefined ? undefined : emailOf(body.emails));
  return {
    userName: readUserName(userNameValue),
    externalId: "externalId" in body ? readExternalId(body.externalId) : (current?.externalId ?? null),
    givenName: readName(n.givenName, "name.givenName"),
    familyName: readName(n.familyName, "name.familyName"),
    formattedName: readName(n.formatted, "name.formatted"),
    displayName: readName(body.displayName, "displayName"),
    active: body.active === undefined ? (current?.active ?? true) : readBoolean(body.active, "active"),
  };
}

// ---- filters ----

export type Filter = { attribute: "userName" | "externalId"; value: string };

const FILTER = /^\s*([A-Za-z][A-Za-z0-9.:[\]" ]*?)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i;

/**
 * `userName eq "…"`, `externalId eq "…"` and the e-mail forms (`emails.value`, `emails[type eq "work"].value`,
 * which name the userName here). Anything else is 400 invalidFilter.
 */
export function parseFilter(text: string | undefined): Filter | null {
  if (text === undefined || text.trim() === "") return null;
  const match = FILTER.exec(text);
  if (!match?.[1] || match[2] === undefined) {
    throw scimErrors.invalidFilter('Only filters of the form userName eq "…" or externalId eq "…" are supported.');
  }
  let value: string;
  try {
    value = JSON.parse(`"${match[2]}"`) as string;
  } catch {
    throw scimErrors.invalidFilter("The filter's value is not a valid string.");
  }
  const attribute = attributeOf(match[1].trim());
  if (attribute === "userName" || attribute === "email") return { attribute: "userName", value };
  if (attribute === "externalId") return { attribute: "externalId", value };
  throw scimErrors.invalidFilter("Users can be filtered by userName or externalId only.");
}

// ---- PATCH ----

type Attribute =
  | "userName"
  | "email"
  | "externalId"
  | "displayName"
  | "name"
  | "name.givenName"
  | "name.familyName"
  | "name.formatted"
  | "active"
  | "emails"
  | null;

const USER_URN_PREFIX = `${SCIM_SCHEMAS.user.toLowerCase()}:`;

/** The attribute a path names (case-insensitive, with or without the core schema's URN); null: one CallProof does not keep. */
function attributeOf(path: string): Attribute {
  let p = path.trim().replace(/\s+/g, " ").toLowerCase();
  if (p.startsWith(USER_URN_PREFIX)) p = p.slice(USER_URN_PREFIX.length);
  switch (p) {
    case "username":
      return "userName";
    case "externalid":
      return "externalId";
    case "displayname":
      return "displayName";
    case "name":
      return "name";
    case "name.givenname":
      return "name.givenName";
    case "name.familyname":
      return "name.familyName";
    case "name.formatted":
      return "name.formatted";
    case "active":
      return "active";
    case "emails":
      return "emails";
    case "emails.value":
    case 'emails[type eq "work"].value':
    case "emails[primary eq true].value":
    case 'emails[primary eq "true"].value':
      return "email";
  }
  return null;
}

function setAttribute(draft: Draft, attribute: Attribute, value: unknown, path: string): Draft {
  switch (attribute) {
    case "userName":
    case "email":
      return { ...draft, userName: readUserName(value) };
    case "emails":
      return { ...draft, userName: readUserName(emailOf(value)) };
    case "externalId":
      return { ...draft, externalId: readExternalId(value) };
    case "displayName":
      return { ...draft, displayName: readName(value, "displayName") };
    case "name.givenName":
      return { ...draft, givenName: readName(value, "name.givenName") };
    case "name.familyName":
      return { ...draft, familyName: readName(value, "name.familyName") };
    case "name.formatted":
      return { ...draft, formattedName: readName(value, "name.formatted") };
    case "name": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw scimErrors.invalidValue("name must be an object.");
      }
      let next = draft;
      for (const [key, v] of Object.entries(value)) next = setAttribute(next, attributeOf(`name.${key}`), v, path);
      return next;
    }
    case "active":
      return { ...draft, active: readBoolean(value, "active") };
    case null:
      // An attribute CallProof does not keep (title, locale, phoneNumbers, enterprise attributes…): ignored.
      return draft;
  }
}

function removeAttribute(draft: Draft, attribute: Attribute, path: string): Draft {
  switch (attribute) {
    case "externalId":
      return { ...draft, externalId: null };
    case "displayName":
      return { ...draft, displayName: null };
    case "name":
      return { ...draft, givenName: null, familyName: null, formattedName: null };
    case "name.givenName":
      return { ...draft, givenName: null };
    case "name.familyName":
      return { ...draft, familyName: null };
    case "name.formatted":
      return { ...draft, formattedName: null };
    case "userName":
    case "email":
    case "emails":
    case "active":
      throw scimErrors.mutability(`${path} cannot be removed: every account has an e-mail and a status.`);
    case null:
      return draft;
  }
}

/** Applies a PATCH's operations in order (RFC 7644 3.5.2); any bad operation refuses the whole request. */
export function applyPatch(current: Draft, body: { schemas?: string[]; Operations: Record<string, unknown>[] }): Draft {
  if (body.schemas && !body.schemas.includes(SCIM_SCHEMAS.patchOp)) {
    throw scimErrors.invalidSyntax(`schemas must include ${SCIM_SCHEMAS.patchOp}.`);
  }
  let draft = current;
  for (const operation of body.Operations) {
    const op = String(operation.op).toLowerCase();
    const path = typeof operation.path === "string" && operation.path.trim() !== "" ? operation.path : undefined;
    if (op !== "add" && op !== "replace" && op !== "remove") {
      throw scimErrors.invalidSyntax(`Unknown operation "${String(operation.op).slice(0, 20)}".`);
    }
    if (op === "remove") {
      if (!path) throw scimErrors.invalidPath("A remove operation needs a path.");
      draft = removeAttribute(draft, attributeOf(path), path);
      continue;
    }
    if (path) {
      draft = setAttribute(draft, attributeOf(path), operation.value, path);
      continue;
    }
    // No path: a value object whose keys are attributes or paths (Okta {"active": false}; Entra ID
    // {"name.givenName": "…", "emails[type eq \"work\"].value": "…"}).
    const value = operation.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw scimErrors.invalidSyntax("An operation without a path needs an object value.");
    }
    for (const [key, v] of Object.entries(value)) draft = setAttribute(draft, attributeOf(key), v, key);
  }
  return draft;
}
