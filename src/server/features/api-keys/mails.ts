import { compose } from "@server/mail/templates";
import { API_KEY_TEXT } from "@shared/api-keys";

const when = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** To every superuser of the organisation: a key was created (a new way into the organisation's data). */
export function keyCreatedMail(
  to: string,
  p: { name: string; prefix: string; scopes: string[]; by: string; at: Date; ip: string },
) {
  return compose(to, API_KEY_TEXT.createdMailSubject, [
    `${p.by} created the API key "${p.name}" (${p.prefix}…) with the scopes ${p.scopes.join(", ")} on ${when(p.at)} from the address ${p.ip}.`,
    "If nobody in your organisation meant to, revoke it on the employer dashboard (API keys) and tell your administrator.",
  ]);
}

/** To the other superusers: a deactivated person's keys were revoked. */
export function keysRevokedMail(
  to: string,
  p: { keys: { name: string; prefix: string }[]; creator: string; at: Date },
) {
  return compose(to, API_KEY_TEXT.revokedMailSubject, [
    `${p.creator} was deactivated on ${when(p.at)}, so the API keys they created were revoked: ${p.keys
      .map((k) => `"${k.name}" (${k.prefix}…)`)
      .join(", ")}.`,
    "Systems using these keys now get 401. Create new keys on the employer dashboard (API keys) for the systems that still need them.",
  ]);
}
