import { z } from "zod";
import { emailDomain, looksLikeDomain } from "./onboarding";
import { pageOf } from "./paging";
import { emailSchema } from "./validation";

/** Texts of the admin dashboard's API. */
export const ADMIN_MESSAGES = {
  accountErased: "The account was erased: its name and e-mail are gone, and it cannot sign in again.",
  accountNotFound: "No account with that id can be erased.",
  webmailRefused:
    "Employer accounts need a company email address; public webmail addresses (such as gmail.com or outlook.com) are not accepted.",
  emailNotVerifiedTag: "E-mail not verified",
  activateAfterVerification: "Can be activated once the e-mail is verified",
  invitationSent: (email: string) => `An invitation with this code was emailed to ${email}.`,
  pendingNotFound: "No pending employer account with that id.",
  emailNotVerifiedYet: "This employer has not verified their email address yet.",
  accountActivated: "Account activated.",
  employerNotFound: "No employer account with that id.",
  employerDeactivated: "Employer deactivated.",
  domainRequired: "Domain is required.",
  invalidDomain: "Enter a valid domain, for example example.com.",
  domainDeactivated: (count: number, domain: string) =>
    `${count} account${count === 1 ? "" : "s"} with email domain "${domain}" deactivated.`,
  deactivatedOrganisationNotFound: "No deactivated organisation with that id.",
  reactivateFailedPrefix: "Failed to reactivate the organisation: ",
  organisationReactivated: (companyName: string, pending: number) =>
    `${companyName} is active again. Its accounts stay deactivated${
      pending > 0
        ? `; its ${pending === 1 ? "employer waits" : `${pending} employers wait`} in the pending list for activation.`
        : "."
    }`,
} as const;

/**
 * Public webmail domains: an employer needs a company address. A base name followed by ".*" stands for
 * every country variant (yahoo.co.uk, gmx.de, yandex.ru ...).
 */
export const WEBMAIL_DOMAINS = [
  "gmail.com",
  "googlemail.com",
  "outlook.*",
  "hotmail.*",
  "live.*",
  "msn.com",
  "passport.com",
  "windowslive.com",
  "yahoo.*",
  "ymail.com",
  "rocketmail.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "aol.*",
  "aim.com",
  "proton.me",
  "protonmail.com",
  "protonmail.ch",
  "pm.me",
  "gmx.*",
  "web.de",
  "mail.com",
  "email.com",
  "yandex.*",
  "ya.ru",
  "mail.ru",
  "zoho.com",
  "zohomail.com",
  "tutanota.com",
  "tutanota.de",
  "tuta.io",
  "tuta.com",
  "fastmail.com",
  "fastmail.fm",
  "hey.com",
  "qq.com",
  "163.com",
  "126.com",
  "sina.com",
  "naver.com",
  "daum.net",
  "btinternet.com",
  "sky.com",
  "virginmedia.com",
  "talktalk.net",
  "orange.fr",
  "free.fr",
  "laposte.net",
  "libero.it",
  "t-online.de",
  "comcast.net",
  "verizon.net",
  "att.net",
  "sbcglobal.net",
  "mailinator.com",
  "guerrillamail.com",
  "10minutemail.com",
] as const;

const exact = new Set<string>(WEBMAIL_DOMAINS.filter((d) => !d.endsWith(".*")));
const bases = new Set<string>(WEBMAIL_DOMAINS.filter((d) => d.endsWith(".*")).map((d) => d.slice(0, -2)));
/** Second-level labels of country domains (yahoo.co.uk, yahoo.com.au). */
const SECOND_LEVEL = new Set(["co", "com", "net", "org", "ne", "or"]);

/** Whether an e-mail domain (or a subdomain of one) is a public webmail service. */
export function isWebmailDomain(domain: string): boolean {
  const labels = domain.toLowerCase().split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    const suffix = labels.slice(i).join(".");
    if (exact.has(suffix)) return true;
    // base.<tld> or base.<sld>.<tld> (yahoo.com, yahoo.de, yahoo.co.uk)
    const rest = labels.slice(i + 1);
    if (!bases.has(labels[i] as string)) continue;
    if (rest.length === 1 || (rest.length === 2 && SECOND_LEVEL.has(rest[0] as string))) return true;
  }
  return false;
}

/** POST /api/admin/generate-employer-access-code */
export const generateEmployerCodeBody = z.object({
  email: emailSchema.refine((e) => !isWebmailDomain(emailDomain(e)), ADMIN_MESSAGES.webmailRefused),
});
export const generateEmployerCodeAnswer = z.object({ code: z.string() });

/** An employer account as the admin sees it (pending or active). */
export const accountRecord = z.object({
  id: z.number(),
  fullName: z.string(),
  email: z.string(),
  companyName: z.string(),
  website: z.string(),
  organisationId: z.number().nullable(),
  /** whether the website's host is one of the organisation's verified sites (or under one) */
  websiteVerified: z.boolean(),
  /** whether the account's e-mail address is verified (a pending employer may still be waiting for it) */
  emailVerified: z.boolean(),
});
export type AccountRecord = z.infer<typeof accountRecord>;

export const accountList = z.array(accountRecord);

export const activeEmployersAnswer = z.union([accountList, pageOf(accountRecord)]);

export const statsAnswer = z.object({ totalGenerated: z.number(), totalVerified: z.number() });

export const domainSchema = z
  .string({ error: ADMIN_MESSAGES.domainRequired })
  .trim()
  .toLowerCase()
  .min(1, ADMIN_MESSAGES.domainRequired)
  .transform((d) => d.replace(/^@/, "").replace(/\.$/, ""))
  .refine(looksLikeDomain, ADMIN_MESSAGES.invalidDomain);

/** POST /api/admin/deactivate-by-domain */
export const deactivateByDomainBody = z.object({ domain: domainSchema });
/** A deactivation's answer: what happened and how many accounts it deactivated. */
export const deactivationAnswer = z.object({ message: z.string(), count: z.number() });
export const deactivateByDomainAnswer = deactivationAnswer;

/** An organisation an admin deactivated (GET /api/admin/deactivated-organisations), newest first. */
export const deactivatedOrganisation = z.object({
  id: z.number(),
  companyName: z.string(),
  domain: z.string(),
  /** ISO 8601, or null when the time is unknown (deactivated before the status existed) */
  deactivatedAt: z.string().nullable(),
});
export type DeactivatedOrganisation = z.infer<typeof deactivatedOrganisation>;
export const deactivatedOrganisationList = z.array(deactivatedOrganisation);

/** The web app's name for the page type; it lives in paging.ts. */
export type { Page } from "./paging";
