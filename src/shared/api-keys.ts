import { z } from "zod";
import { LANGUAGES } from "./languages";
import { callReport } from "./reports-schemas";
import { emailSchema, nameSchema } from "./validation";

/**
 * API keys (`/api/employer/api-keys`) and the integration API (`/api/v1`): scopes, limits, texts, and the
 * request and answer schemas shared by the server's routes, the OpenAPI document and the dashboard panel.
 */

export const API_KEY_SCOPES = [
  "codes:write",
  "codes:read",
  "reports:read",
  "audit:read",
  "activity:read",
  "calls:write",
  "calls:read",
  "checks:answer",
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEY_LIMITS = {
  /** keys per organisation (revoked ones do not count) */
  perOrganisation: 20,
  /** /api/v1 requests per key per rolling minute */
  requestsPerMinute: 600,
  /** refused /api/v1 requests (no key, unknown or revoked key) per client address per rolling minute */
  refusalsPerMinutePerIp: 30,
  /** a key's use is audited at most this often per kind (scope) */
  useAuditEveryMs: 60 * 60_000,
  /** `lastUsedAt` is written at most this often */
  touchEveryMs: 60_000,
  /** cursor pages */
  feedDefaultLimit: 100,
  feedMaxLimit: 1000,
} as const;

/** Languages of identity codes (CONTRACT "Code languages"). */
const CODE_LANGUAGES = LANGUAGES;

export const API_KEY_TEXT = {
  title: "API keys",
  intro:
    "Keys let your own systems (an agent desktop, a CRM, your app, a SIEM) call the CallProof API at /api/v1. Give each system its own key with only the scopes it needs.",
  nameLabel: "Key name",
  nameHint: "For example: Genesys agent desktop",
  scopesLegend: "Scopes",
  scopeHelp: {
    "codes:write": "Issue codes for your employees",
    "codes:read": "Read a code's status and its live events",
    "reports:read": "Read reported calls",
    "audit:read": "Read the audit feed",
    "activity:read": "Read daily activity",
    "calls:write": "Start, renew and end calls, and ask customers to confirm (a dialler or agent desktop)",
    "calls:read": "Read customers' call status and mint status tokens for your signed-in pages",
    "checks:answer": "Answer customer checks from your own app (never on a key with calls:write)",
  } satisfies Record<ApiKeyScope, string>,
  create: "Create key",
  creating: "Creating...",
  created: "Key created. Copy it now: it is shown only once.",
  keyLabel: "New API key",
  copy: "Copy",
  copied: "Copied",
  none: "No API keys yet.",
  columns: { name: "Name", prefix: "Key", scopes: "Scopes", created: "Created", lastUsed: "Last used" },
  never: "Never",
  revoke: "Revoke",
  confirm: "Confirm?",
  revoked: "Key revoked.",
  loadFailed: "Failed to load the API keys. Please try again.",
  actionFailed: "That did not work. Please try again.",
  // refusals
  noScopes: "Choose at least one scope.",
  scopesConflict:
    "A key cannot hold both calls:write and checks:answer: the system that starts calls must not also answer the customer's checks.",
  tooMany: `An organisation can have at most ${API_KEY_LIMITS.perOrganisation} API keys. Revoke one first.`,
  notFound: "No such API key.",
  needsRecentSignIn: "For your security, sign in again before creating an API key.",
  missingKey: "Send an API key: Authorization: Bearer cpk_…",
  invalidKey: "This API key is not valid (unknown, revoked, or its organisation is deactivated).",
  missingScope: (scope: ApiKeyScope) => `This API key lacks the scope ${scope}.`,
  tooManyRequests: `Too many requests with this API key: at most ${API_KEY_LIMITS.requestsPerMinute} a minute.`,
  tooManyRefusals: "Too many refused API requests from your network. Please try again later.",
  employeeNotFound: "No active employee of your organisation has this e-mail.",
  invalidCursor: "`after` must be a cursor this API returned.",
  // mails
  createdMailSubject: "CallProof: a new API key was created",
  revokedMailSubject: "CallProof: API keys were revoked",
} as const;

const scopes = z
  .array(z.enum(API_KEY_SCOPES))
  .max(API_KEY_SCOPES.length)
  .min(1, API_KEY_TEXT.noScopes)
  .refine((s) => !(s.includes("calls:write") && s.includes("checks:answer")), API_KEY_TEXT.scopesConflict)
  .transform((s) => API_KEY_SCOPES.filter((x) => s.includes(x)));

/** `POST /api/employer/api-keys` */
export const apiKeyBody = z.object({ name: nameSchema("Key name"), scopes });
export type ApiKeyBody = z.input<typeof apiKeyBody>;

export const apiKeyItem = z.object({
  id: z.number(),
  name: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  /** who created it: `{id, fullName, email}`, or null once that account was erased */
  createdBy: z.object({ id: z.number(), fullName: z.string(), email: z.string() }).nullable(),
});
export type ApiKeyItem = z.infer<typeof apiKeyItem>;

export const apiKeysAnswer = z.array(apiKeyItem);

export const apiKeyCreatedAnswer = z.object({
  id: z.number(),
  name: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  prefix: z.string(),
  /** the whole key, shown only here */
  key: z.string(),
});
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedAnswer>;

// ---- /api/v1 ----

const EXAMPLE_TIME = "2026-11-25T09:30:00.000Z";

/** `POST /api/v1/codes` */
export const v1CodeBody = z
  .object({
    employeeEmail: emailSchema,
    language: z.enum(CODE_LANGUAGES).optional(),
    /** with it (and the scope calls:write): the code belongs to the employee's outbound call with this customer */
    customerRef: z
      .string()
      .regex(/^[\x21-\x7e]{1,128}$/, "The customer reference must be 1 to 128 printable ASCII characters (no spaces).")
      .optional(),
  })
  .meta({ examples: [{ employeeEmail: "agent@bank.example", language: "en" }] });

export const v1CodeAnswer = z
  .object({
    id: z.number(),
    words: z.array(z.string()),
    expiresAt: z.string(),
    language: z.enum(CODE_LANGUAGES),
    employee: z.object({ fullName: z.string(), email: z.string() }),
  })
  .meta({
    examples: [
      {
        id: 4211,
        words: ["apple", "river", "stone"],
        expiresAt: EXAMPLE_TIME,
        language: "en",
        employee: { fullName: "Ada Agent", email: "agent@bank.example" },
      },
    ],
  });

export const v1CodeStatus = z
  .object({
    id: z.number(),
    status: z.enum(["live", "verified", "expired"]),
    expiresAt: z.string(),
    verifiedAt: z.string().nullable(),
    site: z.string().nullable(),
  })
  .meta({
    examples: [
      { id: 4211, status: "verified", expiresAt: EXAMPLE_TIME, verifiedAt: EXAMPLE_TIME, site: "www.bank.example" },
    ],
  });

/** `?after=&limit=` of the cursors: `after` is a `next` this API returned (decimal digits). */
export const feedQuery = z.object({
  after: z
    .string()
    .regex(/^\d{1,18}$/, API_KEY_TEXT.invalidCursor)
    .optional()
    .meta({ description: "the `next` of the previous page; omitted: from the oldest kept", examples: ["1042"] }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(API_KEY_LIMITS.feedMaxLimit)
    .default(API_KEY_LIMITS.feedDefaultLimit)
    .meta({ description: "1 to 1000 (default 100)" }),
});
export type FeedQuery = z.infer<typeof feedQuery>;

export const auditFeedItem = z.object({
  id: z.number(),
  at: z.string(),
  action: z.string(),
  /** the acting account's e-mail, or null (a customer, the system, an API key: see detail) */
  actor: z.string().nullable(),
  target: z.string().nullable(),
  outcome: z.string(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditFeedItem = z.infer<typeof auditFeedItem>;

export const auditFeedAnswer = z.object({ items: z.array(auditFeedItem), next: z.string() }).meta({
  examples: [
    {
      items: [
        {
          id: 90211,
          at: EXAMPLE_TIME,
          action: "code.verify",
          actor: null,
          target: "4211",
          outcome: "success",
          detail: { origin: "https://www.bank.example", reason: "verified" },
        },
      ],
      next: "1043",
    },
  ],
});

export const reportsFeedAnswer = z.object({ items: z.array(callReport), next: z.string() }).meta({
  examples: [
    {
      items: [
        {
          id: 77,
          at: EXAMPLE_TIME,
          site: "www.bank.example",
          callerNumber: "+44 20 7946 0000",
          claimedName: "Bank security team",
          unverifiedOrigin: false,
          note: "asked for my PIN",
        },
      ],
      next: "12",
    },
  ],
});
