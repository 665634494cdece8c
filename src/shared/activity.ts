import { z } from "zod";

/** Days in the activity chart, today (UTC) included. */
export const ACTIVITY_DAYS = 30;

export const activityDay = z.object({
  day: z.string(),
  generated: z.number(),
  verified: z.number(),
  failedLookups: z.number(),
  reports: z.number(),
});
export type ActivityDay = z.infer<typeof activityDay>;

export const activityAnswer = z.array(activityDay);

export const ACTIVITY_TEXT = {
  title: "Activity, last 30 days",
  intro:
    "Codes your employees generated, codes customers verified, failed look-ups on your sites and reported calls, per day (UTC).",
  series: {
    generated: "Codes generated",
    verified: "Codes verified",
    failedLookups: "Failed look-ups",
    reports: "Reported calls",
  },
  day: "Day",
  showTable: "Show as a table",
  hideTable: "Hide the table",
  chartLabel: (totals: string) => `Activity over the last 30 days: ${totals}`,
  loadFailed: "Failed to load the activity. Please try again.",
} as const;
