import { rateLimited } from "@server/lib/errors";
import { REPORT_FORM_TEXT } from "@shared/reports";

/** Every refusal of the reports feature (validation is the schema's). */
export const reportsErrors = {
  /** `message`: the text in the widget's language (English by default) */
  tooManyReports: (retryAfterSeconds: number, message: string = REPORT_FORM_TEXT.tooMany) =>
    rateLimited(message, retryAfterSeconds),
};
