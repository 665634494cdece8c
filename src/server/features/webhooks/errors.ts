import { HttpError, rateLimited } from "@server/lib/errors";
import { ERROR_CODES } from "@shared/error-codes";
import { WEBHOOK_TEXT } from "@shared/webhooks";

/** Every refusal of the webhooks feature. */
export const webhookErrors = {
  invalid: (message: string) => new HttpError(400, ERROR_CODES.webhookInvalidUrl, message),
  noEndpoint: () => new HttpError(404, ERROR_CODES.webhookNoEndpoint, WEBHOOK_TEXT.noEndpoint),
  tooManyTests: (seconds: number) => rateLimited(WEBHOOK_TEXT.tooManyTests, seconds),
};
