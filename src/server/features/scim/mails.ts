import { compose } from "@server/mail/templates";
import { SCIM_TEXT } from "@shared/scim";

const when = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** To every superuser of the organisation: a SCIM token can create and deactivate its employees. */
export function scimTokenCreatedMail(to: string, by: string, at: Date, ip: string, dashboardUrl: string) {
  return compose(
    to,
    SCIM_TEXT.tokenMailSubject,
    [
      `${by} created a SCIM provisioning token for your organisation on ${when(at)} from the address ${ip}. Any previous token stopped working.`,
      "Whoever holds this token can create, change and deactivate your employees' CallProof accounts.",
      "If this was not expected, revoke the token on the employer dashboard at once.",
    ],
    { label: "Open the employer dashboard", url: dashboardUrl },
  );
}
