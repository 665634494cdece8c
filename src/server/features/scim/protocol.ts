import { holdsUnstorableText } from "@server/plugins/unstorable-text";
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
  /** the userName as the provider wrote it (its letter case kept): shown when it is `userName` in another case */
  userNameAsSent: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formattedName: string | null;
  displayName: string | null;
  active: boolean;
  /**
   * The name attributes the provider has written (set or cleared). One it never wrote is derived from the
   * account's full name when read; one it cleared reads back cleared (RFC 7644 3.5.2, Entra's null update).
   */
  provisioned: NameAttribute[];
};

export const NAME_ATTRIBUTES = ["displayName", "name.formatted", "name.givenName", "name.familyName"] as const;
export type NameAttribute = (typeof NAME_ATTRIBUTES)[number];

function withProvisioned(draft: Draft, ...attributes: NameAttribute[]): Draft {
  return { ...draft, provisioned: [...new Set([...draft.provisioned, ...attributes])] };
}

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

/** The userName as sent (trimmed, letter case kept) beside its lower-case account e-mail. */
function readUserNameAsSent(value: unknown): { userName: string; userNameAsSent: string } {
  const userName = readUserName(value);
  const asSent = typeof value === "string" ? value.trim() : userName;
  return { userName, userNameAsSent: asSent.toLowerCase() === userName ? asSent : userName };
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

/** The name attributes as SCIM shows them: written ones as written (null: cleared), the others derived from the full name. */
export function effectiveNames(draft: Draft, fullName: string | null) {
  const words = (fullName ?? "").trim().split(/\s+/).filter(Boolean);
  const derived = {
    displayName: fullName,
    formatted: fullName,
    // "Ada King Lovelace": given "Ada King", family "Lovelace"; a one-word name is both.
    givenName: words.length > 1 ? words.slice(0, -1).join(" ") : (words[0] ?? null),
    familyName: words.at(-1) ?? null,
  };
  const pick = <T>(attribute: NameAttribute, written: T, otherwise: T) =>
    draft.provisioned.includes(attribute) ? written : otherwise;
  return {
    displayName: pick("displayName", draft.displayName, derived.displayName),
    formatted: pick("name.formatted", draft.formattedName, derived.formatted),
    givenName: pick("name.givenName", draft.givenName, derived.givenName),
    familyName: pick("name.familyName", draft.familyName, derived.familyName),
  };
}

/**
 * The full name shown on a caller card: the written displayName, else the written formatted name, else the
 * given and family names when either was written (the other one derived from the current name), else
 * `fallback` (the account's current full name, or the e-mail's local part for a new account). So a cleared
 * attribute never leaves the account without a name.
 */
export function fullNameOf(draft: Draft, fallback: string, current: string | null = null): string {
  const names = effectiveNames(draft, current);
  const written = (attribute: NameAttribute, value: string | null) =>
    draft.provisioned.includes(attribute) ? value : null;
  const partsWritten = written("name.givenName", draft.givenName) ?? written("name.familyName", draft.familyName);
  const joined = partsWritten ? [names.givenName, names.familyName].filter(Boolean).join(" ") : "";
  const name =
    written("displayName", draft.displayName) ?? written("name.formatted", draft.formattedName) ?? (joined || fallback);
  const parsed = nameSchema("The name").safeParse(name);
  if (!parsed.success) throw scimErrors.invalidValue(parsed.error.issues[0]?.message ?? "The name is not valid.");
  return parsed.data;
}

// ---- attributes= and excludedAttributes= (RFC 7644 3.4.2.5, 3.9) ----

type Projection = { attributes?: string | undefined; excludedAttributes?: string | undefined };

/** The attribute list of a query parameter, as lower-case [attribute, sub-attribute?] (other schemas' attributes dropped). */
function attributeList(text: string | undefined, parameter: string): [string, string?][] {
  if (text === undefined || text.trim() === "") return [];
  const out: [string, string?][] = [];
  for (const item of text.split(",")) {
    const path = item.trim();
    if (path === "") continue;
    const { urn, rest } = splitUrn(path);
    if ((urn !== null && !URN.test(urn)) || !new RegExp(`^${ATTR_PATH}$`).test(rest)) {
      throw scimErrors.invalidValue(`${parameter} names something that is not an attribute.`);
    }
    if (urn !== null && urn.toLowerCase() !== SCIM_SCHEMAS.user.toLowerCase()) continue;
    const [a, sub] = rest.toLowerCase().split(".") as [string, string?];
    out.push([a, sub]);
  }
  return out;
}

const keyOf = (object: Record<string, unknown>, lower: string) =>
  Object.keys(object).find((k) => k.toLowerCase() === lower);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks the two parameters at once (a malformed one is 400 before anything is written). */
export function readProjection(query: Projection) {
  return {
    attributes: attributeList(query.attributes, "attributes"),
    excluded: attributeList(query.excludedAttributes, "excludedAttributes"),
  };
}

/** A resource with only the requested attributes, or without the excluded ones; `id` and `schemas` always. */
export function project<T extends { schemas: string[]; id: string }>(
  resource: T,
  { attributes, excluded }: ReturnType<typeof readProjection>,
): Pick<T, "schemas" | "id"> & Partial<T> {
  const source = resource as Record<string, unknown>;
  let out: Record<string, unknown> = { ...source };
  if (attributes.length > 0) {
    out = { schemas: resource.schemas, id: resource.id };
    for (const [a, sub] of attributes) {
      const key = keyOf(source, a);
      if (key === undefined) continue;
      const value = source[key];
      if (sub === undefined) out[key] = value;
      else if (isObject(value)) {
        const subKey = keyOf(value, sub);
        if (subKey !== undefined) out[key] = { ...(isObject(out[key]) ? out[key] : {}), [subKey]: value[subKey] };
      } else if (Array.isArray(value)) {
        out[key] = value.map((item) => {
          const subKey = isObject(item) ? keyOf(item, sub) : undefined;
          return subKey === undefined || !isObject(item) ? {} : { [subKey]: item[subKey] };
        });
      }
    }
  }
  for (const [a, sub] of excluded) {
    const key = keyOf(out, a);
    if (key === undefined || key === "id" || key === "schemas") continue;
    if (sub === undefined) {
      delete out[key];
      continue;
    }
    const value = out[key];
    if (isObject(value)) {
      const rest = Object.fromEntries(Object.entries(value).filter(([k]) => k.toLowerCase() !== sub));
      if (Object.keys(rest).length > 0) out[key] = rest;
      else delete out[key];
    } else if (Array.isArray(value)) {
      out[key] = value.map((item) =>
        isObject(item) ? Object.fromEntries(Object.entries(item).filter(([k]) => k.toLowerCase() !== sub)) : item,
      );
    }
  }
  return out as Pick<T, "schemas" | "id"> & Partial<T>;
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
    ...readUserNameAsSent(userNameValue),
    externalId: "externalId" in body ? readExternalId(body.externalId) : (current?.externalId ?? null),
    givenName: readName(n.givenName, "name.givenName"),
    familyName: readName(n.familyName, "name.familyName"),
    formattedName: readName(n.formatted, "name.formatted"),
    displayName: readName(body.displayName, "displayName"),
    active: body.active === undefined ? (current?.active ?? true) : readBoolean(body.active, "active"),
    // POST and PUT write every name attribute: one left out is cleared.
    provisioned: [...NAME_ATTRIBUTES],
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
  // A NUL or a lone surrogate written as \u escapes decodes only here: no account holds one.
  if (holdsUnstorableText(value)) throw scimErrors.invalidFilter("The filter's value is not a valid string.");
  const attribute = isWellFormedPath(match[1].trim()) ? attributeOf(match[1].trim()) : null;
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

// The path grammar of RFC 7644 3.5.2 (with the filter grammar of 3.4.2.2 inside brackets):
// PATH = attrPath / valuePath [subAttr], attrPath = [URI ":"] ATTRNAME *1subAttr.
const NAME = "[A-Za-z][A-Za-z0-9_$-]*";
const ATTR_PATH = `${NAME}(?:\\.${NAME})?`;
const COMP_VALUE = '"(?:[^"\\\\]|\\\\.)*"|true|false|null|-?\\d+(?:\\.\\d+)?';
const COMPARISON = `(?:not\\s*\\(\\s*)?${ATTR_PATH}\\s+(?:(?:eq|ne|co|sw|ew|gt|lt|ge|le)\\s+(?:${COMP_VALUE})|pr)(?:\\s*\\))?`;
const VAL_FILTER = `${COMPARISON}(?:\\s+(?:and|or)\\s+${COMPARISON})*`;
const PATH = new RegExp(`^(?:${ATTR_PATH}|${NAME}\\[\\s*${VAL_FILTER}\\s*\\](?:\\.${NAME})?)$`, "i");
const URN = /^urn:[A-Za-z0-9][A-Za-z0-9._:-]*$/i;

/** Splits `urn:…:attr…` into its schema URN and the attribute path (the URN ends at the last ":" before any "["). */
function splitUrn(path: string): { urn: string | null; rest: string } {
  if (!/^urn:/i.test(path)) return { urn: null, rest: path };
  const bracket = path.indexOf("[");
  const end = path.lastIndexOf(":", bracket >= 0 ? bracket : path.length);
  return { urn: path.slice(0, end), rest: path.slice(end + 1) };
}

/** Whether a path is well formed (RFC 7644 3.5.2), whatever attribute it names. */
export function isWellFormedPath(path: string): boolean {
  const { urn, rest } = splitUrn(path.trim());
  return (urn === null || URN.test(urn)) && PATH.test(rest);
}

/** A PATCH path: malformed is 400 invalidPath; well formed, the attribute it names (null: one CallProof does not keep). */
function pathAttribute(path: string): Attribute {
  if (path.length > 500 || !isWellFormedPath(path)) {
    throw scimErrors.invalidPath(`"${path.slice(0, 80)}" is not a valid attribute path (RFC 7644 3.5.2).`);
  }
  const { urn } = splitUrn(path.trim());
  if (urn !== null && urn.toLowerCase() !== SCIM_SCHEMAS.user.toLowerCase()) return null; // an extension's attribute
  return attributeOf(path);
}

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
      return { ...draft, ...readUserNameAsSent(value) };
    case "emails":
      return { ...draft, ...readUserNameAsSent(emailOf(value)) };
    case "externalId":
      return { ...draft, externalId: readExternalId(value) };
    case "displayName":
      return withProvisioned({ ...draft, displayName: readName(value, "displayName") }, "displayName");
    case "name.givenName":
      return withProvisioned({ ...draft, givenName: readName(value, "name.givenName") }, "name.givenName");
    case "name.familyName":
      return withProvisioned({ ...draft, familyName: readName(value, "name.familyName") }, "name.familyName");
    case "name.formatted":
      return withProvisioned({ ...draft, formattedName: readName(value, "name.formatted") }, "name.formatted");
    case "name": {
      if (value === null || value === "") return removeAttribute(draft, "name", path);
      if (typeof value !== "object" || Array.isArray(value)) {
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
      return withProvisioned({ ...draft, displayName: null }, "displayName");
    case "name":
      return withProvisioned(
        { ...draft, givenName: null, familyName: null, formattedName: null },
        "name.givenName",
        "name.familyName",
        "name.formatted",
      );
    case "name.givenName":
      return withProvisioned({ ...draft, givenName: null }, "name.givenName");
    case "name.familyName":
      return withProvisioned({ ...draft, familyName: null }, "name.familyName");
    case "name.formatted":
      return withProvisioned({ ...draft, formattedName: null }, "name.formatted");
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
    if (op !== "add" && op !== "replace" && op !== "remove") {
      throw scimErrors.invalidSyntax(`Unknown operation "${String(operation.op).slice(0, 20)}".`);
    }
    if (operation.path !== undefined && typeof operation.path !== "string") {
      throw scimErrors.invalidPath("path must be a string.");
    }
    const path = typeof operation.path === "string" && operation.path.trim() !== "" ? operation.path : undefined;
    if (op === "remove") {
      if (!path) throw scimErrors.noTarget("A remove operation needs a path (RFC 7644 3.5.2.2).");
      draft = removeAttribute(draft, pathAttribute(path), path);
      continue;
    }
    if (path) {
      draft = setAttribute(draft, pathAttribute(path), operation.value, path);
      continue;
    }
    // No path: a value object whose keys are attributes or paths (Okta {"active": false}; Entra ID
    // {"name.givenName": "…", "emails[type eq \"work\"].value": "…"}).
    const value = operation.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw scimErrors.invalidSyntax("An operation without a path needs an object value.");
    }
    for (const [key, v] of Object.entries(value)) draft = setAttribute(draft, pathAttribute(key), v, key);
  }
  return draft;
}
