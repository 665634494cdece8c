import { rateLimited } from "@server/lib/errors";
import { REPORT_FORM_TEXT } from "@shared/reports";

/** Every refusal of the reports feature (validation is the schema's). */
export const reportsErrors = {
  tooManyReports: (retryAfterSeconds: number) => rateLimited(REPORT_FORM_TEXT.tooMany, retryAfterSeconds),
};
