import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const organisations = pgTable(
  "organisations",
  {
    id: serial("id").primaryKey(),
    companyName: text("company_name").notNull(),
    /** lower-case e-mail domain of the employer; employees must sign up exactly at it */
    domain: text("domain").notNull(),
    /** normalised https URL */
    website: text("website").notNull(),
    /** lower-case host of website, for domain locking */
    websiteHost: text("website_host").notNull(),
    createdAt: ts("created_at").notNull(),
    /** when its superusers were last mailed about reported calls (at most one mail per 10 minutes) */
    reportsMailedAt: ts("reports_mailed_at"),
    /**
     * `deactivated` by an admin's deactivation (of the employer or by domain), cleared only by an admin's
     * reactivation: the one answer to "is this organisation active" (features/organisations/status.ts)
     */
    status: text("status", { enum: ["active", "deactivated"] })
      .notNull()
      .default("active"),
    deactivatedAt: ts("deactivated_at"),
  },
  (t) => [
    uniqueIndex("organisations_domain_key").on(t.domain),
    check("organisations_status_check", sql`${t.status} in ('active', 'deactivated')`),
  ],
);

export const users = pgTable(
  "users",
  {
    id: serial("id").primaryKey(),
    /** always stored lower-case, so unique case-insensitively */
    email: text("email").notNull(),
    fullName: text("full_name").notNull(),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: ["admin", "superuser", "client"] }).notNull(),
    organisationId: integer("organisation_id").references(() => organisations.id),
    emailVerifiedAt: ts("email_verified_at"),
    status: text("status", { enum: ["pending", "active", "deactivated"] }).notNull(),
    codesGenerated: integer("codes_generated").notNull().default(0),
    codesVerified: integer("codes_verified").notNull().default(0),
    createdAt: ts("created_at").notNull(),
    activatedAt: ts("activated_at"),
    deactivatedAt: ts("deactivated_at"),
  },
  (t) => [
    uniqueIndex("users_email_key").on(t.email),
    index("users_organisation_idx").on(t.organisationId),
    check("users_email_lower", sql`${t.email} = lower(${t.email})`),
    check("users_role_check", sql`${t.role} in ('admin', 'superuser', 'client')`),
    check("users_status_check", sql`${t.status} in ('pending', 'active', 'deactivated')`),
  ],
);

export const sessions = pgTable(
  "sessions",
  {
    /** SHA-256 of the cookie token (base64url); the token itself is never stored */
    tokenHash: text("token_hash").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull(),
    lastSeenAt: ts("last_seen_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    /** the id shown to the user on /account; the token hash is never shown */
    id: bigserial("id", { mode: "number" }).notNull(),
    /** the browser's User-Agent when the session started, bounded and without control characters */
    userAgent: text("user_agent"),
    /** the client address when the session started */
    ip: text("ip"),
    /** started by single sign-on (enforcing SSO ends every other session of the organisation's clients) */
    viaSso: boolean("via_sso").notNull().default(false),
  },
  (t) => [index("sessions_user_idx").on(t.userId), uniqueIndex("sessions_id_key").on(t.id)],
);

/** One mechanism for sign-in codes, e-mail verification and password reset (GUIDE 7). */
export const verificationTokens = pgTable(
  "verification_tokens",
  {
    id: serial("id").primaryKey(),
    purpose: text("purpose", { enum: ["sign-in", "verify-email", "reset-password"] }).notNull(),
    /** what the token is for: a user id */
    target: text("target").notNull(),
    /** HMAC-SHA256 of the secret under APP_SECRET */
    secretHash: text("secret_hash").notNull(),
    expiresAt: ts("expires_at").notNull(),
    tries: integer("tries").notNull().default(0),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("verification_tokens_purpose_target_key").on(t.purpose, t.target),
    index("verification_tokens_secret_idx").on(t.secretHash),
  ],
);

/** Admin-issued invitations for employers ("Admin access code"). */
export const employerInvitations = pgTable(
  "employer_invitations",
  {
    id: serial("id").primaryKey(),
    email: text("email").notNull(),
    /** HMAC of the upper-cased code */
    codeHash: text("code_hash").notNull(),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    usedBy: integer("used_by").references(() => users.id),
  },
  (t) => [uniqueIndex("employer_invitations_code_key").on(t.codeHash)],
);

/** Employer-issued access codes for employees. */
export const employeeAccessCodes = pgTable(
  "employee_access_codes",
  {
    id: serial("id").primaryKey(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    createdBy: integer("created_by").references(() => users.id),
    /** HMAC of the upper-cased code, for look-up */
    codeHash: text("code_hash").notNull(),
    /** the code encrypted under APP_SECRET (AES-256-GCM), so the employer dashboard can show it again */
    codeSealed: text("code_sealed").notNull(),
    maxUsers: integer("max_users").notNull(),
    usedCount: integer("used_count").notNull().default(0),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("employee_access_codes_code_key").on(t.codeHash),
    index("employee_access_codes_org_idx").on(t.organisationId, t.createdAt),
    check("employee_access_codes_used_le_max", sql`${t.usedCount} <= ${t.maxUsers}`),
  ],
);

/** Three-word identity codes; only an HMAC of the words is kept. */
export const identityCodes = pgTable(
  "identity_codes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    codeHash: text("code_hash").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    /** when a look-up verified it (it is used up then) */
    usedAt: ts("used_at"),
    /** the host of the site the look-up came from, or null (no Origin: a server-side integration) */
    verifiedHost: text("verified_host"),
  },
  (t) => [uniqueIndex("identity_codes_code_key").on(t.codeHash), index("identity_codes_user_idx").on(t.userId)],
);

/** Rolling-window rate limits shared by every process: the times of the hits still inside the window. */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    hits: timestamp("hits", { withTimezone: true, mode: "date" }).array().notNull(),
    /** whether the last hit was let through */
    allowed: boolean("allowed").notNull(),
    /** refused hits since the last allowed one */
    refused: integer("refused").notNull().default(0),
    /** when every hit has left the window; rows past it may be deleted */
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("rate_limits_expires_idx").on(t.expiresAt)],
);

/** Append-only: the code has no update or delete path for it. Never holds secrets. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: ts("at").notNull(),
    actorId: integer("actor_id"),
    actorEmail: text("actor_email"),
    organisationId: integer("organisation_id"),
    action: text("action").notNull(),
    target: text("target"),
    ip: text("ip"),
    outcome: text("outcome").notNull(),
    detail: jsonb("detail").$type<Record<string, unknown>>(),
  },
  (t) => [
    // Each ends with (at, id), the viewer's order, so a page at any depth is read from the index alone.
    index("audit_log_at_id_idx").on(t.at, t.id),
    index("audit_log_org_at_id_idx").on(t.organisationId, t.at, t.id),
    index("audit_log_actor_at_idx").on(t.actorId, t.at),
    /** the admin's audit filter by actor e-mail */
    index("audit_log_actor_email_at_id_idx").on(t.actorEmail, t.at, t.id),
    index("audit_log_action_at_id_idx").on(t.action, t.at, t.id),
  ],
);

/** WebAuthn credentials (passkeys): only public keys, never a secret. */
export const passkeys = pgTable(
  "passkeys",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** base64url credential id, as the authenticator reports it */
    credentialId: text("credential_id").notNull(),
    /** base64url COSE public key */
    publicKey: text("public_key").notNull(),
    /** base64url WebAuthn user handle given at registration */
    userHandle: text("user_handle").notNull(),
    /** the authenticator's signature counter; 0 for authenticators that keep none */
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: text("transports").array().notNull().default(sql`'{}'`),
    /** may be synced to other devices (multi-device credential) */
    backupEligible: boolean("backup_eligible").notNull(),
    backedUp: boolean("backed_up").notNull(),
    name: text("name").notNull(),
    createdAt: ts("created_at").notNull(),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [uniqueIndex("passkeys_credential_id_key").on(t.credentialId), index("passkeys_user_idx").on(t.userId)],
);

/**
 * Single-use WebAuthn challenges, stored as hashes. `binding` ties each to where it was issued:
 * the session's token hash (registration) or the hash of an HttpOnly pre-session cookie (sign-in).
 */
export const webauthnChallenges = pgTable(
  "webauthn_challenges",
  {
    id: serial("id").primaryKey(),
    challengeHash: text("challenge_hash").notNull(),
    purpose: text("purpose", { enum: ["register", "sign-in"] }).notNull(),
    binding: text("binding").notNull(),
    /** the user a registration challenge was issued to; null for sign-in */
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [
    uniqueIndex("webauthn_challenges_challenge_key").on(t.challengeHash),
    index("webauthn_challenges_expires_idx").on(t.expiresAt),
    check("webauthn_challenges_purpose_check", sql`${t.purpose} in ('register', 'sign-in')`),
  ],
);

/**
 * The hosts where an organisation's codes verify. A host is `pending` until proved (its e-mail domain by
 * the verification e-mail, others by DNS, the well-known file or an admin); a verified host covers its
 * subdomains. The token is what the DNS record or file must hold.
 */
export const organisationSites = pgTable(
  "organisation_sites",
  {
    id: serial("id").primaryKey(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    /** lower-case host name, only [a-z0-9.-] */
    host: text("host").notNull(),
    status: text("status", { enum: ["pending", "verified"] }).notNull(),
    /** how it was proved; null while pending */
    method: text("method", { enum: ["email-domain", "dns", "well-known", "admin"] }),
    token: text("token").notNull(),
    verifiedAt: ts("verified_at"),
    /** when its proof was last looked up */
    checkedAt: ts("checked_at"),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("organisation_sites_org_host_key").on(t.organisationId, t.host),
    index("organisation_sites_host_idx").on(t.host).where(sql`${t.status} = 'verified'`),
    index("organisation_sites_recheck_idx").on(t.checkedAt).where(sql`${t.method} in ('dns', 'well-known')`),
    check("organisation_sites_host_check", sql`${t.host} ~ '^[a-z0-9.-]{1,253}$'`),
    check("organisation_sites_status_check", sql`${t.status} in ('pending', 'verified')`),
    check("organisation_sites_method_check", sql`${t.method} in ('email-domain', 'dns', 'well-known', 'admin')`),
    check("organisation_sites_verified_has_method", sql`(${t.status} = 'verified') = (${t.method} is not null)`),
  ],
);

/** Calls customers reported after a failed look-up, routed to the organisation whose verified site they came from. */
export const callReports = pgTable(
  "call_reports",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: ts("at").notNull(),
    /** null: the report reached no organisation (the product's own site, an unknown origin) and goes to the admins */
    organisationId: integer("organisation_id").references(() => organisations.id),
    /** the host of the page the report was sent from */
    site: text("site"),
    callerNumber: text("caller_number"),
    claimedName: text("claimed_name"),
    note: text("note"),
    /** when the organisation's superusers were told about it */
    mailedAt: ts("mailed_at"),
    /** the report's feed position (GET /api/v1/reports), given only once the transaction that wrote it ended */
    position: bigint("position", { mode: "number" }),
    /**
     * the sending network (IPv4 address, IPv6 /48), for the per-destination budget that sheds the heaviest
     * sources first; null on reports kept from before it
     */
    source: text("source"),
    /** the Origin was missing or not the product's own nor an https site an organisation proved */
    unverifiedOrigin: boolean("unverified_origin").notNull().default(false),
    /** where the customer sent it from: the verification widget, or the call-status component (a status token) */
    via: text("via", { enum: ["widget", "call-status"] })
      .notNull()
      .default("widget"),
  },
  (t) => [
    index("call_reports_org_at_idx").on(t.organisationId, t.at, t.id),
    uniqueIndex("call_reports_position_key").on(t.position),
    index("call_reports_unpositioned_idx").on(t.id).where(sql`${t.position} is null`),
    index("call_reports_org_position_idx").on(t.organisationId, t.position),
    index("call_reports_unmailed_idx")
      .on(t.organisationId)
      .where(sql`${t.mailedAt} is null and ${t.organisationId} is not null`),
    check(
      "call_reports_lengths",
      sql`coalesce(length(${t.callerNumber}), 0) <= 500 and coalesce(length(${t.claimedName}), 0) <= 500 and coalesce(length(${t.note}), 0) <= 500 and coalesce(length(${t.site}), 0) <= 253`,
    ),
    check("call_reports_not_empty", sql`coalesce(${t.callerNumber}, ${t.claimedName}, ${t.note}) is not null`),
  ],
);

/** One webhook endpoint per organisation. The signing secret is sealed under APP_SECRET, never stored in clear. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    organisationId: integer("organisation_id")
      .primaryKey()
      .references(() => organisations.id),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    secretSealed: text("secret_sealed").notNull(),
    /** the last characters of the secret, to recognise it */
    secretHint: text("secret_hint").notNull(),
    createdAt: ts("created_at").notNull(),
    /** failed attempts in a row (any delivery); a success sets it back to 0 (the circuit breaker) */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** while in the future, the endpoint is paused as a whole (circuit open); test events still go out */
    pausedUntil: ts("paused_until"),
    /**
     * deliveries in flight at once across every process (the fair claim's share): 4 at first, one more
     * per fast success up to 128, halved after a failure or a slow answer (webhooks/service.ts)
     */
    inFlightCap: integer("in_flight_cap").notNull().default(4),
  },
  (t) => [check("webhook_endpoints_url_length", sql`length(${t.url}) <= 2000`)],
);

/**
 * The webhook outbox: a row per event per endpoint, written in the same statement as the event.
 * Workers claim due rows with FOR UPDATE SKIP LOCKED and hold them for a lease (`locked_until`).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** the `webhook-id` header: the same on every attempt, so receivers deduplicate */
    messageId: text("message_id").notNull(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    eventType: text("event_type").notNull(),
    /** the exact body sent and signed */
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: ts("created_at").notNull(),
    nextAttemptAt: ts("next_attempt_at").notNull(),
    lockedUntil: ts("locked_until"),
    lastAttemptAt: ts("last_attempt_at"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    deliveredAt: ts("delivered_at"),
    /** a call event's customer (keyed hash of its customerRef), so the customer's erasure finds the delivery */
    customerHash: text("customer_hash"),
    /** a call event's call, so retention deletes the deliveries that name a deleted call */
    callId: text("call_id"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_message_key").on(t.messageId),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_org_idx").on(t.organisationId, t.id),
    index("webhook_deliveries_customer_idx")
      .on(t.organisationId, t.customerHash)
      .where(sql`${t.customerHash} is not null`),
    index("webhook_deliveries_call_idx").on(t.callId).where(sql`${t.callId} is not null`),
    index("webhook_deliveries_org_due_idx").on(t.organisationId, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // the deliveries in flight per endpoint (the fair claim counts them at every claim)
    index("webhook_deliveries_leased_idx")
      .on(t.organisationId)
      .where(sql`${t.status} = 'pending' and ${t.lockedUntil} is not null`),
    // test events skip the queue: found without reading a dead endpoint's backlog
    index("webhook_deliveries_test_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending' and ${t.eventType} = 'webhook.test'`),
    check("webhook_deliveries_status_check", sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);

/** An organisation's alert settings; an organisation without a row has the defaults (on, 20, 3). */
export const alertSettings = pgTable(
  "alert_settings",
  {
    organisationId: integer("organisation_id")
      .primaryKey()
      .references(() => organisations.id),
    enabled: boolean("enabled").notNull().default(true),
    failedLookupsPer10Minutes: integer("failed_lookups_per_10_minutes").notNull().default(20),
    reportsPerHour: integer("reports_per_hour").notNull().default(3),
    deniedChecksPerHour: integer("denied_checks_per_hour").notNull().default(1),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    check(
      "alert_settings_thresholds",
      sql`${t.failedLookupsPer10Minutes} between 1 and 10000 and ${t.reportsPerHour} between 1 and 10000 and ${t.deniedChecksPerHour} between 1 and 10000`,
    ),
  ],
);

/** Alerts raised for the fraud team: at most one per kind per organisation per hour (alert_slots). */
export const alerts = pgTable(
  "alerts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    kind: text("kind").notNull(),
    at: ts("at").notNull(),
    /** distinct clients (IPv4 addresses, IPv6 /48s) in the window when it was raised, or when it last doubled */
    count: integer("count").notNull(),
    windowStart: ts("window_start").notNull(),
    windowEnd: ts("window_end").notNull(),
    /** the hosts involved (never the customers' addresses) */
    sites: text("sites").array().notNull(),
  },
  (t) => [
    index("alerts_org_at_idx").on(t.organisationId, t.at),
    check("alerts_kind_check", sql`${t.kind} in ('failed-lookups', 'reports', 'disowned-calls', 'denied-checks')`),
  ],
);

/** When each kind of alert was last raised for an organisation: the claim that keeps it to one an hour. */
export const alertSlots = pgTable(
  "alert_slots",
  {
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    kind: text("kind").notNull(),
    lastRaisedAt: ts("last_raised_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organisationId, t.kind] })],
);

/** Signed checkpoints of the audit chain: each head as it was made, and each cut retention made. */
export const auditCheckpoints = pgTable(
  "audit_checkpoints",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: ts("at").notNull(),
    kind: text("kind").notNull(),
    position: bigint("position", { mode: "number" }).notNull(),
    mac: text("mac").notNull(),
    signature: text("signature").notNull(),
  },
  (t) => [check("audit_checkpoints_kind_check", sql`${t.kind} in ('head', 'cut')`)],
);

/**
 * The audit chain, apart from the events it covers (issue 36): the checkpoint job inserts one row per event
 * once the event's transaction has ended, so an audit row is written once (the job used to rewrite it
 * through its nine indexes). Erasure and address cutting delete salts here; retention deletes rows with
 * their events. The organisation is copied from the event for the feed's cursor (GET /api/v1/audit).
 */
export const auditChain = pgTable(
  "audit_chain",
  {
    /** the event (audit_log.id) */
    eventId: bigint("event_id", { mode: "number" }).primaryKey(),
    /** the feed position, given by the checkpoint job once the writing transaction has ended */
    position: bigint("position", { mode: "number" }).notNull(),
    organisationId: integer("organisation_id"),
    /** per-value salts of the personal values (email, ip, target, detail); erasure and IP cutting delete them */
    salts: jsonb("salts").$type<Record<string, string>>(),
    /** sha256(salt, value) of each personal value, covered by the chain */
    commits: jsonb("commits").$type<Record<string, string>>(),
    /** the keyed hash chain: HMAC(key, previous mac, this event) */
    mac: text("mac"),
  },
  (t) => [
    uniqueIndex("audit_chain_position_key").on(t.position),
    /** the organisation's audit cursor (GET /api/v1/audit) */
    index("audit_chain_org_position_idx").on(t.organisationId, t.position),
  ],
);

/**
 * How far the audit log's daily work has gone (one row), so that it looks at the newest events only,
 * whatever the history. The checkpoint job: every event with an id at or below `below` is chained (or will
 * never be written); `candidate` becomes `below` once every transaction running when it was read
 * (`candidateXmax`, a snapshot's xmax) has ended (chain.ts). The address cut: every event before
 * `addressesCutBefore` has its address cut (maintenance.ts).
 */
export const auditChainMark = pgTable("audit_chain_mark", {
  id: integer("id").primaryKey(),
  below: bigint("below", { mode: "number" }).notNull(),
  candidate: bigint("candidate", { mode: "number" }),
  candidateXmax: text("candidate_xmax"),
  addressesCutBefore: ts("addresses_cut_before"),
});

/** Feed positions of audit events (and, through them, the cursors and the chain): never reused. */
export const auditFeedPosition = pgSequence("audit_feed_position");

/** Feed positions of reported calls (GET /api/v1/reports): given after commit, never reused. */
export const reportFeedPosition = pgSequence("report_feed_position");

/** An organisation's API keys for /api/v1 (features/api-keys): only an HMAC of the key is kept. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: serial("id").primaryKey(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    name: text("name").notNull(),
    scopes: text("scopes").array().notNull(),
    /** the public start of the key (`cpk_` and 8 characters), shown in lists and used to find the key */
    prefix: text("prefix").notNull(),
    /** HMAC-SHA256 of the whole key under APP_SECRET */
    keyHash: text("key_hash").notNull(),
    createdBy: integer("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: ts("created_at").notNull(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
    /** when each kind of use (a scope) was last audited: use is audited at most hourly per kind */
    useAudited: jsonb("use_audited").$type<Record<string, string>>().notNull().default({}),
  },
  (t) => [
    uniqueIndex("api_keys_prefix_key").on(t.prefix),
    index("api_keys_org_idx").on(t.organisationId),
    index("api_keys_creator_idx").on(t.createdBy),
    check("api_keys_name_length", sql`length(${t.name}) between 1 and 100`),
  ],
);

/**
 * An organisation's OpenID Connect connection (features/sso). The client secret is sealed under APP_SECRET,
 * bound to the organisation and its purpose; it is never answered.
 */
export const ssoConnections = pgTable(
  "sso_connections",
  {
    organisationId: integer("organisation_id")
      .primaryKey()
      .references(() => organisations.id),
    issuer: text("issuer").notNull(),
    clientId: text("client_id").notNull(),
    clientSecretSealed: text("client_secret_sealed").notNull(),
    /** the last characters of the secret, to recognise it */
    secretHint: text("secret_hint").notNull(),
    enforced: boolean("enforced").notNull().default(false),
    jitProvisioning: boolean("jit_provisioning").notNull().default(true),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [check("sso_connections_lengths", sql`length(${t.issuer}) <= 500 and length(${t.clientId}) <= 255`)],
);

/**
 * Which account an identity provider's `(iss, sub)` signs in (features/users owns it): made at the first
 * SSO sign-in, deleted when the account is deactivated or erased or the connection's issuer or client changes.
 */
export const ssoLinks = pgTable(
  "sso_links",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("sso_links_issuer_subject_key").on(t.issuer, t.subject),
    uniqueIndex("sso_links_user_key").on(t.userId),
    index("sso_links_organisation_idx").on(t.organisationId),
  ],
);

/**
 * Single sign-on attempts in flight (features/sso): the state's hash, single use, bound to the browser by
 * the hash of an HttpOnly cookie. The PKCE verifier and the nonce are derived from the cookie and the
 * state under APP_SECRET, so nothing here is a secret.
 */
export const ssoStates = pgTable(
  "sso_states",
  {
    stateHash: text("state_hash").primaryKey(),
    binding: text("binding").notNull(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    /** the connection the attempt started with: a changed connection refuses the callback */
    issuer: text("issuer").notNull(),
    clientId: text("client_id").notNull(),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [index("sso_states_expires_idx").on(t.expiresAt)],
);

/**
 * One SCIM bearer token per organisation (features/scim). `token_id` is the public part of the token,
 * used to find its row; only a SHA-256 of the whole token is kept, compared in constant time.
 */
export const scimTokens = pgTable(
  "scim_tokens",
  {
    organisationId: integer("organisation_id")
      .primaryKey()
      .references(() => organisations.id),
    tokenId: text("token_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdBy: integer("created_by").references(() => users.id),
    createdAt: ts("created_at").notNull(),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [uniqueIndex("scim_tokens_token_id_key").on(t.tokenId)],
);

/**
 * What SCIM knows of an organisation's `client` account beyond the users row: the identity provider's
 * externalId and name parts, whether SCIM deactivated it (only those it may reactivate), and when SCIM
 * deleted it (the row stays as a tombstone for the audit log; the e-mail it had is kept in
 * `released_user_name` until an erasure). Erasure empties every personal column.
 */
export const scimUsers = pgTable(
  "scim_users",
  {
    userId: integer("user_id")
      .primaryKey()
      .references(() => users.id),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    externalId: text("external_id"),
    givenName: text("given_name"),
    familyName: text("family_name"),
    formattedName: text("formatted_name"),
    displayName: text("display_name"),
    /** the userName as the provider wrote it (letter case kept); users.email is its lower-case form */
    userName: text("user_name"),
    /** the name attributes the provider has written (displayName, name.formatted…): null then means cleared */
    provisioned: text("provisioned").array().notNull().default(sql`'{}'`),
    deactivatedByScim: boolean("deactivated_by_scim").notNull().default(false),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    deletedAt: ts("deleted_at"),
    releasedUserName: text("released_user_name"),
    /** set by erasure: SCIM answers 404 for the account for ever */
    erasedAt: ts("erased_at"),
  },
  (t) => [
    index("scim_users_org_external_idx").on(t.organisationId, t.externalId),
    check("scim_users_external_id_length", sql`length(${t.externalId}) <= 255`),
  ],
);

/**
 * Calls (contract, "Calls"): one employee's conversation with one customer. The customer's reference is kept
 * only sealed (bound to the organisation and this purpose) and as a keyed hash for look-ups.
 */
export const calls = pgTable(
  "calls",
  {
    /** random, not sequential */
    id: text("id").primaryKey(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id),
    /** HMAC of the customerRef under a key derived from APP_SECRET and the organisation */
    customerHash: text("customer_hash").notNull(),
    /** the customerRef sealed under `call-customer:<organisationId>` */
    customerSealed: text("customer_sealed").notNull(),
    direction: text("direction", { enum: ["outbound", "inbound"] }).notNull(),
    /** "dashboard", or "api:<key prefix>" for a call the organisation's dialler started */
    startedVia: text("started_via").notNull(),
    /** the session that started it (dashboard calls): the call ends with the session */
    sessionId: bigint("session_id", { mode: "number" }),
    startedAt: ts("started_at").notNull(),
    /** the last renewal (or the start) */
    renewedAt: ts("renewed_at").notNull(),
    /** when it ends unless renewed: min(renewedAt + 2 minutes, startedAt + 60 minutes) */
    endsAt: ts("ends_at").notNull(),
    endedAt: ts("ended_at"),
    endReason: text("end_reason"),
    disownedAt: ts("disowned_at"),
    /** the last webhook sequence number given to an event of this call */
    sequence: integer("sequence").notNull().default(0),
  },
  (t) => [
    // At most one active call per employee, on every process.
    uniqueIndex("calls_one_active_per_user_key").on(t.userId).where(sql`${t.endedAt} is null`),
    index("calls_customer_idx").on(t.organisationId, t.customerHash, t.startedAt),
    // The calls job's (repository `jobOpenSql`): partial on a conjunct no request states, so that no request's
    // plan reads every active call through them (repository `activeCallSql`).
    index("calls_due_idx").on(t.endsAt).where(sql`${t.endedAt} is null and ${t.endReason} is null`),
    index("calls_started_idx").on(t.startedAt),
    index("calls_session_idx").on(t.sessionId).where(sql`${t.endedAt} is null and ${t.endReason} is null`),
    check("calls_direction_check", sql`${t.direction} in ('outbound', 'inbound')`),
  ],
);

/** Customer checks: the organisation asks the customer, in their own app, to confirm it is them. */
export const customerChecks = pgTable(
  "customer_checks",
  {
    /** random, not sequential */
    id: text("id").primaryKey(),
    callId: text("call_id")
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    customerHash: text("customer_hash").notNull(),
    /** the employee who asked, or null when asked through the API */
    requestedBy: integer("requested_by").references(() => users.id),
    /** "dashboard" or "api:<key prefix>" */
    requestedVia: text("requested_via").notNull(),
    status: text("status", { enum: ["pending", "confirmed", "denied", "expired"] })
      .notNull()
      .default("pending"),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    answeredAt: ts("answered_at"),
    /** "component" or "api:<key prefix>" */
    answeredVia: text("answered_via"),
  },
  (t) => [
    // One pending check per customer and organisation (a check past expiresAt is marked expired first).
    uniqueIndex("customer_checks_one_pending_key")
      .on(t.organisationId, t.customerHash)
      .where(sql`${t.status} = 'pending'`),
    index("customer_checks_call_idx").on(t.callId, t.createdAt),
    index("customer_checks_customer_idx").on(t.organisationId, t.customerHash, t.createdAt),
    check("customer_checks_status_check", sql`${t.status} in ('pending', 'confirmed', 'denied', 'expired')`),
  ],
);

/** Status tokens for the call-status component: only a hash is kept; bound to one origin and one customer. */
export const callStatusTokens = pgTable(
  "call_status_tokens",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** SHA-256 of the token (`cps_…`, at least 128 random bits) */
    tokenHash: text("token_hash").notNull(),
    organisationId: integer("organisation_id")
      .notNull()
      .references(() => organisations.id),
    customerHash: text("customer_hash").notNull(),
    /** exactly the origin it was minted for (scheme, host and port) */
    origin: text("origin").notNull(),
    /** minted with `answer: true` (a key with checks:answer): may answer the customer's pending check */
    canAnswer: boolean("can_answer").notNull().default(false),
    /** the key that minted it: the token dies with the key */
    apiKeyId: integer("api_key_id").references(() => apiKeys.id),
    createdAt: ts("created_at").notNull(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("call_status_tokens_hash_key").on(t.tokenHash),
    index("call_status_tokens_customer_idx").on(t.organisationId, t.customerHash, t.createdAt),
    index("call_status_tokens_expires_idx").on(t.expiresAt),
  ],
);
