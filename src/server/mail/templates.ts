import { RESET_KEEPS_PASSKEYS } from "@shared/account-texts";
import { ALERT_MAIL_SUBJECT_PREFIX } from "@shared/alerts";
import type { Mail } from "./mailer";

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** Builds a mail with a plain-text part and an equivalent simple HTML part. */
export function compose(
  to: string,
  subject: string,
  paragraphs: string[],
  action?: { label: string; url: string },
): Mail {
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), "— CallProof"].join("\n\n");
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1b2330;line-height:1.5">
${paragraphs.map((p) => `<p>${esc(p)}</p>`).join("\n")}
${action ? `<p><a href="${esc(action.url)}" style="color:#0b5cad">${esc(action.label)}</a></p><p style="font-size:12px;color:#4a5568">${esc(action.url)}</p>` : ""}
<p>— CallProof</p></body></html>`;
  return { to, subject, text, html };
}

export function signInCodeMail(to: string, code: string, minutes: number): Mail {
  return compose(to, "Your CallProof sign-in code", [
    `Your sign-in code is ${code}`,
    `It is valid for ${minutes} minutes and can be used once. If you did not try to sign in, change your password.`,
  ]);
}

export function verifyEmailMail(to: string, url: string, hours: number): Mail {
  return compose(
    to,
    "Verify your CallProof email address",
    [
      "Please confirm your email address to finish creating your CallProof account.",
      `The link is valid for ${hours} hours.`,
    ],
    { label: "Verify my email", url },
  );
}

export function passwordResetMail(to: string, url: string, minutes: number): Mail {
  return compose(
    to,
    "Reset your CallProof password",
    [
      "Someone asked to reset the password of your CallProof account.",
      `The link is valid for ${minutes} minutes and can be used once. If it was not you, ignore this email.`,
      RESET_KEEPS_PASSKEYS,
    ],
    { label: "Choose a new password", url },
  );
}

export function employerInvitationMail(to: string, url: string, code: string, days: number): Mail {
  return compose(
    to,
    "Your invitation to CallProof",
    [
      "You have been invited to create an employer account on CallProof.",
      `Your access code is ${code}. It can be used once within ${days} days.`,
    ],
    { label: "Create your employer account", url },
  );
}

export function employerActivatedMail(to: string, url: string): Mail {
  return compose(
    to,
    "Your CallProof employer account is active",
    [
      "Good news: the CallProof team has activated your employer account.",
      "You can now sign in, generate access codes for your employees and add the verification widget to your website.",
    ],
    { label: "Sign in", url },
  );
}

export function siteProofLostMail(to: string, host: string, url: string): Mail {
  return compose(
    to,
    `CallProof no longer verifies codes on ${host}`,
    [
      `The proof that ${host} belongs to your organisation is gone: the DNS record or the file CallProof checks was not found.`,
      `Until it is back, your employees' codes do not verify on ${host}. Restore the proof, then press "Check now" in the Sites section of your dashboard.`,
    ],
    { label: "Open your dashboard", url },
  );
}

/**
 * The summary of new reported calls. It names how many and when, never the reporters' own words: those
 * are a stranger's text, shown only on the dashboard.
 */
export function reportedCallsMail(to: string, company: string, count: number, firstAt: Date, url: string): Mail {
  const calls = count === 1 ? "1 call" : `${count} calls`;
  return compose(
    to,
    `${calls} reported in the name of ${company}`,
    [
      `Customers who could not verify a caller on your website reported ${calls} since ${firstAt.toISOString().slice(0, 16).replace("T", " ")} UTC.`,
      "Someone may be calling in your organisation's name. The details (number, name given, what they asked for) are in the Reported calls section of your dashboard.",
    ],
    { label: "Open your dashboard", url },
  );
}

const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * An alert for the organisation's superusers: what happened, how many distinct addresses, the window and
 * the sites involved; never the customers' addresses.
 */
export function alertMail(
  to: string,
  alert: {
    kind: "failed-lookups" | "reports" | "disowned-calls" | "denied-checks";
    count: number;
    windowStart: Date;
    windowEnd: Date;
    sites: string[];
  },
  url: string,
): Mail {
  if (alert.kind === "disowned-calls" || alert.kind === "denied-checks") {
    const what =
      alert.kind === "disowned-calls"
        ? `${alert.count} calls started through your API in an employee's name that the employee was not on`
        : `${alert.count} customer checks denied: the customer said they were not on the call`;
    return compose(
      to,
      `${ALERT_MAIL_SUBJECT_PREFIX} ${what}`,
      [
        `Between ${utc(alert.windowStart)} and ${utc(alert.windowEnd)}: ${what}.`,
        `Calls involved: ${alert.sites.length > 0 ? alert.sites.join(", ") : "none recorded"}.`,
        "Someone may be impersonating your organisation or your customers. Follow your fraud procedure.",
      ],
      { label: "Open your dashboard", url },
    );
  }
  const what =
    alert.kind === "failed-lookups"
      ? `${alert.count} failed checks of identity codes on your sites`
      : `${alert.count} reported calls`;
  const sites = alert.sites.length > 0 ? alert.sites.join(", ") : "none recorded";
  return compose(
    to,
    `${ALERT_MAIL_SUBJECT_PREFIX} ${what}`,
    [
      `Between ${utc(alert.windowStart)} and ${utc(alert.windowEnd)}, customers made ${what} (each IPv4 address or IPv6 /48 network counted once).`,
      `Sites involved: ${sites}.`,
      "Someone may be calling your customers in your organisation's name. Your dashboard shows the reported calls, the numbers reported most and the activity.",
    ],
    { label: "Open your dashboard", url },
  );
}
