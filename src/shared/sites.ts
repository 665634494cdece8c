import { z } from "zod";
import { looksLikeDomain, normaliseWebsite } from "./onboarding";

/** Texts of the organisation sites API and screen. */
export const SITES_MESSAGES = {
  hostRequired: "Host is required.",
  invalidHost: "Enter a host name, for example www.example.com.",
  siteExists: "This site is already on the list.",
  siteNotFound: "No site with that host on the list.",
  emailDomainFixed: "Your email domain cannot be removed: your organisation's email addresses prove it.",
  tooManySites: "An organisation can list at most 20 sites. Remove one first.",
  tooManyChecks: "Too many checks. Please wait a few minutes and try again.",
  noOrganisation: "No organisation with that id.",
} as const;

export const SITE_STATUSES = ["pending", "verified"] as const;
export type SiteStatus = (typeof SITE_STATUSES)[number];

export const SITE_METHODS = ["email-domain", "dns", "well-known", "admin"] as const;
export type SiteMethod = (typeof SITE_METHODS)[number];

/** Limits of the sites feature. */
export const SITE_LIMITS = {
  maxSitesPerOrganisation: 20,
  /** "Check now" per organisation: each check makes outbound look-ups */
  checksPerWindow: 10,
  checkWindowMs: 10 * 60_000,
  /** a verified site proved by DNS or the file is looked up again this often */
  recheckEveryMs: 24 * 60 * 60_000,
} as const;

/** What a proof must look like for a site's host and token. */
export const SITE_PROOF = {
  dnsName: (host: string) => `_callproof.${host}`,
  dnsValue: (token: string) => `callproof-site-verification=${token}`,
  filePath: "/.well-known/callproof-site-verification.txt",
  fileUrl: (host: string) => `https://${host}/.well-known/callproof-site-verification.txt`,
} as const;

/**
 * A host as typed ("www.example.com", "https://www.example.com/about") reduced to its lower-case host
 * name, or null when it is not a public domain name made of [a-z0-9.-].
 */
export function normaliseHost(input: string): string | null {
  const host = normaliseWebsite(input)?.host ?? null;
  return host && looksLikeDomain(host) ? host : null;
}

/** Whether `host` is `parent` or one of its subdomains. */
export function isHostUnder(host: string, parent: string): boolean {
  return host === parent || host.endsWith(`.${parent}`);
}

export const hostSchema = z
  .string({ error: SITES_MESSAGES.hostRequired })
  .trim()
  .min(1, SITES_MESSAGES.hostRequired)
  .max(300, SITES_MESSAGES.invalidHost)
  .transform((value, ctx) => {
    const host = normaliseHost(value);
    if (host === null) {
      ctx.addIssue({ code: "custom", message: SITES_MESSAGES.invalidHost });
      return z.NEVER;
    }
    return host;
  });

/** POST /api/employer/sites, POST /api/employer/sites/check, POST /api/admin/organisations/:id/sites */
export const siteHostBody = z.object({ host: hostSchema });

/** DELETE /api/employer/sites/:host */
export const siteHostParams = z.object({ host: hostSchema });

export const siteRecord = z.object({
  host: z.string(),
  status: z.enum(SITE_STATUSES),
  method: z.enum(SITE_METHODS).nullable(),
  token: z.string(),
});
export type SiteRecord = z.infer<typeof siteRecord>;

export const sitesAnswer = z.array(siteRecord);

export const siteCheckAnswer = siteRecord.omit({ token: true });
export type SiteCheckAnswer = z.infer<typeof siteCheckAnswer>;
