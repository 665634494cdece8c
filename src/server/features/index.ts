import { ALERT_LIMITS } from "@shared/alerts";
import accountRoutes from "./account/routes";
import activityRoutes from "./activity/routes";
import adminRoutes from "./admin/routes";
import alertsRoutes from "./alerts/routes";
import { raiseDueAlerts } from "./alerts/service";
import apiKeysCascade from "./api-keys/cascade";
import apiKeysRoutes from "./api-keys/routes";
import { checkpointAudit } from "./audit/chain";
import checkpointOnClose from "./audit/checkpoint-on-close";
import { applyRetention } from "./audit/retention";
import auditRoutes from "./audit/routes";
import { deleteExpiredTokens } from "./auth/repository";
import authRoutes from "./auth/routes";
import { callsFeature } from "./calls";
import { watchCodeGuessing } from "./codes/guessing";
import codeEvents from "./codes/live";
import { deleteCodesExpiredBefore } from "./codes/repository";
import codesRoutes from "./codes/routes";
import employerRoutes from "./employer/routes";
import type { Feature } from "./feature";
import onboardingRoutes from "./onboarding/routes";
import { deleteReportsBefore } from "./reports/repository";
import reportsRoutes from "./reports/routes";
import { mailDueReportSummaries, REPORTS_KEPT_MS } from "./reports/service";
import scimRoutes from "./scim/routes";
import { sitesDeps } from "./sites/deps";
import sitesRoutes from "./sites/routes";
import { recheckSites } from "./sites/service";
import { deleteStatesExpiredBefore } from "./sso/repository";
import ssoRoutes from "./sso/routes";
import { deleteExpiredSessions } from "./users/repository";
import session from "./users/session";
import v1Routes from "./v1/routes";
import { deleteFinishedDeliveriesBefore } from "./webhooks/repository";
import webhooksRoutes from "./webhooks/routes";
import webhookWorker from "./webhooks/worker";

export type { Feature, Job } from "./feature";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * Every feature of the server, once: `app.ts` registers their plugins, routes (each tagged with its
 * feature in the OpenAPI document) and jobs from this list, and housekeeping asks each for its sweep.
 * The README's "Where things live" lists the same (a test checks it).
 */
export const FEATURES: Feature[] = [
  {
    name: "users",
    purpose: "Accounts and sessions: the session cookie and CSRF check, sign-in refusals, deactivation.",
    plugins: [session],
    sweep: (deps, now) => deleteExpiredSessions(deps.db, now),
  },
  {
    name: "organisations",
    purpose: "Organisations: which one an employer-facing call acts for.",
  },
  {
    name: "auth",
    purpose: "Sign-in in two steps, password reset and e-mail verification (one token mechanism).",
    routes: authRoutes,
    sweep: (deps, now) => deleteExpiredTokens(deps.db, now),
  },
  {
    name: "account",
    purpose: "The signed-in person's account: password, sessions, passkeys, data export.",
    routes: accountRoutes,
  },
  {
    name: "onboarding",
    purpose: "Employer invitations and sign-up, employees joining with an access code.",
    routes: onboardingRoutes,
  },
  {
    name: "codes",
    purpose: "Identity codes: generation, the widget's look-up, live status.",
    plugins: [codeEvents],
    routes: codesRoutes,
    // Codes are deleted a day after they expire.
    sweep: (deps, now) => deleteCodesExpiredBefore(deps.db, new Date(now.getTime() - DAY_MS)),
    // The global failure budget of code guessing: an alert in the log, nobody refused.
    jobs: [{ name: "code guessing watch", everyMs: 20_000, run: (app) => watchCodeGuessing(app.deps) }],
  },
  {
    name: "admin",
    purpose: "The platform admins' dashboard: employer accounts, activation, deactivation, erasure.",
    routes: adminRoutes,
  },
  {
    name: "employer",
    purpose: "The employer dashboard: employees and the employee access code.",
    routes: employerRoutes,
  },
  {
    name: "audit",
    purpose: "The audit log's views and exports, and retention of addresses and events.",
    routes: auditRoutes,
    plugins: [checkpointOnClose],
    jobs: [
      // At start, once serving (not in the way of the first answers), then hourly.
      { name: "retention", everyMs: HOUR_MS, firstAfterMs: 5_000, run: (app) => applyRetention(app.deps) },
      // Every event is in the chain within a minute.
      { name: "audit checkpoint", everyMs: 20_000, run: (app) => checkpointAudit(app.deps) },
    ],
  },
  {
    name: "sites",
    purpose: "An organisation's proven sites (domain locking) and their daily re-check.",
    routes: sitesRoutes,
    jobs: [
      {
        name: "site re-check",
        everyMs: HOUR_MS,
        firstAfterMs: MINUTE_MS,
        run: async (app) => {
          const lost = await recheckSites(sitesDeps(app));
          if (lost.length > 0) app.log.info({ hosts: lost }, "sites lost their proof");
        },
      },
    ],
  },
  {
    name: "reports",
    purpose: "Calls customers report from the widget, routed to the organisation or the admins.",
    routes: reportsRoutes,
    jobs: [{ name: "reported-calls summaries", everyMs: MINUTE_MS, run: (app) => mailDueReportSummaries(app.deps) }],
    sweep: (deps, now) => deleteReportsBefore(deps.db, new Date(now.getTime() - REPORTS_KEPT_MS)),
  },
  {
    name: "activity",
    purpose: "An organisation's last 30 days, per day.",
    routes: activityRoutes,
  },
  {
    name: "alerts",
    purpose: "Alerts for the fraud team: bursts of failed checks or reports.",
    routes: alertsRoutes,
    jobs: [{ name: "alerts", everyMs: ALERT_LIMITS.checkEveryMs, run: (app) => raiseDueAlerts(app.deps) }],
  },
  {
    name: "webhooks",
    purpose: "Signed events to the organisation's own systems, from a database outbox.",
    plugins: [webhookWorker],
    routes: webhooksRoutes,
    // Finished deliveries are kept 30 days (the dashboard shows the last 20).
    sweep: (deps, now) => deleteFinishedDeliveriesBefore(deps.db, new Date(now.getTime() - 30 * DAY_MS)),
  },
  {
    name: "api-keys",
    purpose: "An organisation's API keys for /api/v1: created, listed, revoked, and checked on every call.",
    plugins: [apiKeysCascade],
    routes: apiKeysRoutes,
  },
  {
    name: "v1",
    purpose: "The integration API (/api/v1, Bearer keys): codes, their live status, the audit and reports cursors.",
    routes: v1Routes,
  },
  {
    name: "sso",
    purpose: "Single sign-on through the organisation's identity provider (OpenID Connect).",
    routes: ssoRoutes,
    // Attempts are kept a day after they expire (a replay still reads "used"), then deleted.
    sweep: (deps, now) => deleteStatesExpiredBefore(deps.db, new Date(now.getTime() - DAY_MS)),
  },
  {
    name: "scim",
    purpose: "SCIM 2.0 provisioning: the organisation's identity provider creates and deactivates its employees.",
    routes: scimRoutes,
  },
  callsFeature,
];
