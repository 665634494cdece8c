import { rateLimited } from "@server/lib/errors";
import { REPORTS_TEXT } from "@shared/reports";

/** Every refusal of the reports feature (validation is the schema's). */
export const reportsErrors = {
  tooManyReports: (retryAfterSeconds: number) => rateLimited(REPORTS_TEXT.tooMany, retryAfterSeconds),
};
