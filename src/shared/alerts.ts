import { z } from "zod";

/** The kinds of alert: a burst of failed checks on the organisation's own sites, or a wave of reports. */
export const ALERT_KINDS = ["failed-lookups", "reports", "disowned-calls", "denied-checks"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_DEFAULTS = {
  enabled: true,
  failedLookupsPer10Minutes: 20,
  reportsPerHour: 3,
  deniedChecksPerHour: 1,
} as const;
export const ALERT_LIMITS = {
  /** thresholds are whole numbers in this range */
  minThreshold: 1,
  maxThreshold: 10_000,
  /** the rolling windows */
  failedLookupsWindowMs: 10 * 60_000,
  reportsWindowMs: 60 * 60_000,
  /** employees disowning calls started in their name, and customers denying checks: counted over an hour */
  callsWindowMs: 60 * 60_000,
  /** a single disowned call raises an alert */
  disownedCallsThreshold: 1,
  /** at most one alert per kind per organisation in this time */
  quietMs: 60 * 60_000,
  /** the job looks this often, so an alert is raised within a minute of the event that reaches the threshold */
  checkEveryMs: 20_000,
  /** the dashboard lists this many recent alerts */
  recentShown: 20,
  /** most reported numbers: the last 30 days, this many numbers */
  topNumbersDays: 30,
  topNumbersShown: 10,
} as const;

const threshold = z
  .number({ error: "Thresholds are whole numbers from 1 to 10000." })
  .int("Thresholds are whole numbers from 1 to 10000.")
  .min(ALERT_LIMITS.minThreshold, "Thresholds are whole numbers from 1 to 10000.")
  .max(ALERT_LIMITS.maxThreshold, "Thresholds are whole numbers from 1 to 10000.");

export const alertSettings = z.object({
  enabled: z.boolean(),
  failedLookupsPer10Minutes: z.number(),
  reportsPerHour: z.number(),
  deniedChecksPerHour: z.number(),
});
export type AlertSettings = z.infer<typeof alertSettings>;

/** PUT /api/employer/alerts: fields left out keep their values; an unknown field is refused. */
export const alertSettingsBody = z.strictObject({
  enabled: z.boolean().optional(),
  failedLookupsPer10Minutes: threshold.optional(),
  reportsPerHour: threshold.optional(),
  deniedChecksPerHour: threshold.optional(),
});
export type AlertSettingsBody = z.infer<typeof alertSettingsBody>;

export const alertRecord = z.object({
  id: z.number(),
  kind: z.enum(ALERT_KINDS),
  at: z.string(),
  count: z.number(),
  windowStart: z.string(),
  windowEnd: z.string(),
});
export type AlertRecord = z.infer<typeof alertRecord>;

export const alertsAnswer = z.object({ settings: alertSettings, recent: z.array(alertRecord) });
export type AlertsAnswer = z.infer<typeof alertsAnswer>;

export const reportedNumber = z.object({ number: z.string(), reports: z.number() });
export type ReportedNumber = z.infer<typeof reportedNumber>;
export const reportedNumbersAnswer = z.array(reportedNumber);

export const ALERTS_TEXT = {
  title: "Alerts",
  intro:
    "CallProof e-mails your superusers, and sends alert.raised to your webhook, when failed checks on your own sites or reported calls come in a burst: the sign of someone calling your customers in your name.",
  kinds: {
    "failed-lookups": "Failed checks on your sites",
    reports: "Reported calls",
    "disowned-calls": "Calls started in an employee's name that they were not on",
    "denied-checks": "Customers who said they were not on the call",
  } satisfies Record<AlertKind, string>,
  none: "No alerts yet.",
  recentCaption: "Recent alerts, newest first",
  columns: { at: "Raised", kind: "What", count: "Count", window: "Window" },
  settingsLegend: "Alert settings",
  enabled: "Send alerts",
  failedLookupsLabel: "Failed checks from different addresses within 10 minutes",
  reportsLabel: "Reported calls from different addresses within an hour",
  deniedChecksLabel: "Customers who say they are not on the call, within an hour",
  save: "Save alert settings",
  saved: "Alert settings saved.",
  invalidThreshold: "Thresholds are whole numbers from 1 to 10000.",
  loadFailed: "Failed to load the alerts. Please try again.",
  saveFailed: "The alert settings could not be saved. Please try again.",
  topNumbersTitle: "Most reported numbers",
  topNumbersIntro:
    "The caller numbers your customers reported most in the last 30 days, each counted once per reporting address: ask your telephone provider to block them.",
  topNumbersNone: "No numbers reported in the last 30 days.",
  topNumbersCaption: "Reported caller numbers, most reported first",
  topNumbersColumns: { number: "Number", reports: "Reports" },
} as const;

/** The alert mail's subject starts with this (the contract). */
export const ALERT_MAIL_SUBJECT_PREFIX = "CallProof alert:";
