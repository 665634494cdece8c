import { z } from "zod";
import { emailSchema } from "./validation";

/**
 * Calls (contract, "Calls"): constants, the request and answer schemas of /api/calls… and the dialler's
 * /api/v1 calls, and the texts of their refusals.
 */

export const CALL_DIRECTIONS = ["outbound", "inbound"] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

export const CHECK_STATUSES = ["pending", "confirmed", "denied", "expired"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

export const CALL_LIMITS = {
  /** a call nobody renews ends this long after its start or last renewal */
  renewWithinMs: 2 * 60_000,
  /** and at the latest this long after its start */
  maxLengthMs: 60 * 60_000,
  /** a check waits this long for the customer's answer */
  checkLifetimeMs: 2 * 60_000,
  /** call starts per employee in a rolling hour */
  startsPerEmployeePerHour: 30,
  /** call starts per organisation in a rolling minute */
  startsPerOrganisationPerMinute: 600,
  /** checks per customer (and organisation) in 10 minutes */
  checksPerCustomerPer10Minutes: 3,
  /** checks an employee asks for in a rolling minute */
  checksPerEmployeePerMinute: 3,
  /** the job that ends due calls and expires due checks runs this often */
  sweepEveryMs: 1_000,
  /** open event streams per employee (a few tabs) */
  streamsPerEmployee: 5,
  /** a customerRef: 1–128 printable ASCII characters */
  customerRefMax: 128,
} as const;

export const CALLS_TEXT = {
  customerRefInvalid: "The customer reference must be 1 to 128 printable ASCII characters (no spaces).",
  callNotFound: "No such call.",
  checkNotFound: "No such customer check.",
  callEnded: "This call has ended.",
  checkPending: "The customer already has a check waiting for an answer.",
  checkDenied: "The customer said they are not on this call: no further check on it.",
  checkAnswered: "This check is no longer waiting for an answer.",
  tooManyStarts: `Too many calls started: at most ${CALL_LIMITS.startsPerEmployeePerHour} an hour per employee.`,
  tooManyOrganisationStarts: `Too many calls started by your organisation: at most ${CALL_LIMITS.startsPerOrganisationPerMinute} a minute.`,
  tooManyChecks: "Too many checks for this customer. Please wait a few minutes.",
  tooManyEmployeeChecks: "Too many checks. Please wait a minute.",
  tooManyStreams: "Too many open call streams. Close another tab first.",
  organisationDeactivated: "Your organisation is deactivated: calls are not available.",
  notAnEmployee: "Only an organisation's employees and superusers have calls.",
  notOnlyApi: "Only a call started through the API in your name can be disowned.",
} as const;

/** The organisation's own id for a customer: 1–128 printable ASCII characters (`\x21`–`\x7e`), compared exactly. */
export const customerRefSchema = z
  .string({ error: CALLS_TEXT.customerRefInvalid })
  .regex(/^[\x21-\x7e]{1,128}$/, CALLS_TEXT.customerRefInvalid)
  .meta({ description: "the organisation's own id for the customer (1–128 printable ASCII)", examples: ["C-104233"] });

const direction = z.enum(CALL_DIRECTIONS);
const EXAMPLE_TIME = "2026-11-25T09:30:00.000Z";

/** `POST /api/calls` */
export const callBody = z.strictObject({ customerRef: customerRefSchema, direction });
export type CallBody = z.infer<typeof callBody>;

/** `POST /api/v1/calls` */
export const v1CallBody = z
  .strictObject({ employeeEmail: emailSchema, customerRef: customerRefSchema, direction })
  .meta({ examples: [{ employeeEmail: "agent@bank.example", customerRef: "C-104233", direction: "outbound" }] });
export type V1CallBody = z.infer<typeof v1CallBody>;

/** `{customerRef}`: the customer's export and erasure */
export const customerBody = z.strictObject({ customerRef: customerRefSchema });

/** `POST /api/v1/customer-checks/:id` */
export const checkAnswerBody = z.strictObject({ answer: z.enum(["confirmed", "denied"]) });

/** A call or check id: random, url-safe. */
export const callIdParams = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .meta({ description: "a call or check id", examples: ["c_3kq9Xv0ZpY1m2N4r5s6t7u"] }),
});

export const callAnswer = z
  .object({
    id: z.string(),
    customerRef: z.string(),
    direction,
    startedAt: z.string(),
    endsAt: z.string(),
  })
  .meta({
    examples: [
      {
        id: "c_3kq9Xv0ZpY1m2N4r5s6t7u",
        customerRef: "C-104233",
        direction: "outbound",
        startedAt: EXAMPLE_TIME,
        endsAt: EXAMPLE_TIME,
      },
    ],
  });
export type CallAnswer = z.infer<typeof callAnswer>;

/** `GET /api/calls/current`: the call, and whether it was started through the API (it may be disowned) */
export const currentCallAnswer = callAnswer
  .extend({ startedVia: z.enum(["dashboard", "api"]) })
  .nullable()
  .meta({ examples: [null] });
export type CurrentCall = z.infer<typeof currentCallAnswer>;

export const v1CallAnswer = callAnswer.extend({
  employee: z.object({ fullName: z.string(), email: z.string() }),
});

export const renewAnswer = z.object({ endsAt: z.string() });
export const okAnswer = z.object({ ok: z.literal(true) });

export const checkCreatedAnswer = z.object({
  id: z.string(),
  status: z.literal("pending"),
  expiresAt: z.string(),
});

export const checkAnswer = z.object({
  id: z.string(),
  callId: z.string(),
  status: z.enum(CHECK_STATUSES),
  expiresAt: z.string(),
  answeredAt: z.string().nullable(),
  answeredVia: z.string().nullable(),
});
export type CheckAnswer = z.infer<typeof checkAnswer>;

export const checkAnsweredAnswer = z.object({ id: z.string(), status: z.enum(CHECK_STATUSES) });

/** The `check` event of `GET /api/calls/:id/events` */
export type CheckEvent = {
  id: string;
  status: CheckStatus;
  answeredAt: string | null;
  answeredVia: string | null;
  /** when answered through an API key: its name ("…pressed Yes through {key name}…"), else null */
  keyName: string | null;
};
/** The `colleague` event */
export type ColleagueEvent = { count: number };

/** `POST /api/v1/customers/export` */
export const customerExportAnswer = z.object({
  calls: z.array(
    z.object({
      id: z.string(),
      direction,
      startedAt: z.string(),
      endedAt: z.string().nullable(),
      employee: z.object({ fullName: z.string() }),
      checks: z.array(
        z.object({
          id: z.string(),
          status: z.enum(CHECK_STATUSES),
          createdAt: z.string(),
          expiresAt: z.string(),
          answeredAt: z.string().nullable(),
          answeredVia: z.string().nullable(),
        }),
      ),
    }),
  ),
});
export type CustomerExport = z.infer<typeof customerExportAnswer>;

export const customerErasedAnswer = z.object({ calls: z.number() });

/** The first word of an employee's full name (the component's `{firstName}`). */
export function firstNameOf(fullName: string): string {
  return fullName.trim().split(/\s+/)[0] ?? "";
}
