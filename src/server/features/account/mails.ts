import { compose } from "@server/mail/templates";

const when = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

export function passwordChangedMail(to: string, at: Date, ip: string) {
  return compose(to, "Your CallProof password was changed", [
    `The password of your CallProof account was changed on ${when(at)} from the address ${ip}.`,
    "Every other session was signed out. If this was not you, reset your password at once and tell your administrator.",
  ]);
}

export function passkeyAddedMail(to: string, name: string, at: Date, ip: string) {
  return compose(to, "A passkey was added to your CallProof account", [
    `A passkey named "${name}" was added to your CallProof account on ${when(at)} from the address ${ip}. It can sign in without your password.`,
    "If this was not you, remove it on your account page, change your password and tell your administrator.",
  ]);
}
