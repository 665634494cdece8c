import { z } from "zod";
import { REPORT_FIELD_MAX } from "./reports";

/**
 * The customer's side of calls (contract, "Calls": "Tokens and the component's routes"): the status tokens
 * an organisation's backend mints, its call-status read, and the call-status component's protocol
 * (docs/calls.md, "The component's protocol"). The component and the server both read these.
 */
export const CALL_STATUS_LIMITS = {
  /** a status token's life */
  tokenTtlMs: 15 * 60_000,
  /** live tokens per customer and organisation: minting another revokes the oldest */
  tokensPerCustomer: 20,
  /** open streams per token */
  streamsPerToken: 3,
  /** open streams per client address (IPv6 by /64) */
  streamsPerAddress: 20,
  /** open streams per server process: past it new streams get 503 with Retry-After */
  streamsPerProcess: 5_000,
  /** what a refused stream's Retry-After says (the component polls this often) */
  retryAfterSeconds: 15,
  /** a stream sends `ping` at least this often once the server has confirmed the state again */
  heartbeatMs: 15_000,
} as const;

/** A status token: `cps_` and 32 bytes of randomness in base64url (256 bits). */
export const STATUS_TOKEN_FORMAT = /^cps_[A-Za-z0-9_-]{43}$/;

/** The organisation's id for a customer: 1–128 printable ASCII characters, compared exactly. */
const customerRef = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21-\x7e]+$/, "customerRef: 1 to 128 printable ASCII characters (no spaces)");

/** `POST /api/v1/customers/status-token` */
export const statusTokenBody = z.strictObject({
  customerRef,
  /** the page's origin exactly (scheme, host and port), one of the organisation's verified https sites */
  origin: z.string().min(1).max(300),
  /** the token may answer the customer's pending check (the key needs checks:answer too) */
  answer: z.boolean().optional(),
});
export type StatusTokenBody = z.infer<typeof statusTokenBody>;

export const statusTokenAnswer = z.object({ token: z.string(), expiresAt: z.string() });

/** `DELETE /api/v1/customers/status-tokens` and `POST /api/v1/customers/call-status` */
export const customerRefBody = z.strictObject({ customerRef });

export const revokedTokensAnswer = z.object({ revoked: z.number() });

/** `POST /api/v1/customers/call-status` */
export const callStatusAnswer = z.object({
  calling: z.array(
    z.object({
      callId: z.string(),
      employee: z.object({ firstName: z.string(), fullName: z.string() }),
      startedAt: z.string(),
    }),
  ),
  lastCallAt: z.string().nullable(),
  lastCaller: z.object({ firstName: z.string() }).nullable(),
});
export type CallStatusAnswer = z.infer<typeof callStatusAnswer>;

/**
 * The component's state: the data of a stream's `state` event. `calling`: the customer's active outbound
 * calls, newest first; `check`: the customer's pending check of an active call (null when none);
 * `canAnswer`: the token was minted with `answer: true`.
 */
export const componentState = z.object({
  companyName: z.string(),
  calling: z.array(z.object({ firstName: z.string(), startedAt: z.string() })),
  lastCallAt: z.string().nullable(),
  check: z
    .object({
      id: z.string(),
      direction: z.enum(["outbound", "inbound"]),
      firstName: z.string(),
      expiresAt: z.string(),
    })
    .nullable(),
  canAnswer: z.boolean(),
});
export type ComponentState = z.infer<typeof componentState>;

/** The data of a stream's `ping` event: the server confirmed the state (and the token) at `at`. */
export type ComponentPing = { at: string };
/** The data of a stream's last event, `end`: why it ends (the component shows the unavailable state). */
export type ComponentEnd = { reason: "expired" | "revoked" };

/** `POST /api/call-status/checks/:id` */
export const componentAnswerBody = z.strictObject({ answer: z.enum(["confirmed", "denied"]) });
export const componentCheckParams = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});
export const componentAnswerAnswer = z.object({ id: z.string(), status: z.string() });

const NO_CONTROL = /^[^\p{C}]*$/u;
const reportText = () =>
  z
    .string()
    .max(REPORT_FIELD_MAX * 4)
    .trim()
    .max(REPORT_FIELD_MAX)
    .regex(NO_CONTROL, "no control or format characters")
    .optional()
    .transform((v) => (v ? v : undefined));

/** `POST /api/call-status/report`: every field optional (the button alone reports the call). */
export const componentReportBody = z.strictObject({
  callerNumber: reportText(),
  claimedName: reportText(),
  note: reportText(),
  /** the component's language: the answer's message is in it */
  language: z.string().max(35).optional(),
});
