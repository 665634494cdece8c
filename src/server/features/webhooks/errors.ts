import { HttpError, rateLimited } from "@server/lib/errors";
import { WEBHOOK_TEXT } from "@shared/webhooks";

/** Every refusal of the webhooks feature. */
export const webhookErrors = {
  invalid: (message: string) => new HttpError(400, "webhooks.invalid_url", message),
  noEndpoint: () => new HttpError(404, "webhooks.no_endpoint", WEBHOOK_TEXT.noEndpoint),
  noOrganisation: () => new HttpError(404, "webhooks.no_organisation", WEBHOOK_TEXT.noOrganisation),
  tooManyTests: (seconds: number) => rateLimited(WEBHOOK_TEXT.tooManyTests, seconds),
};
