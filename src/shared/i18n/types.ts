/**
 * The texts the customer reads, one catalogue per language (en.ts, fr.ts, …): the widget's, its loader's
 * and /in-a-call's. Placeholders are written `{name}`, `{company}`, `{domain}` and filled by `fillIn`.
 * Staff screens stay in English and are not here.
 */
export type WidgetTexts = {
  title: string;
  label: string;
  hint: string;
  button: string;
  checking: string;
  verified: string;
  verifiedCompany: string;
  verifiedDomain: string;
  verifiedCompanyDomain: string;
  /** on the product's own site, under a verified answer: which domain vouches for the caller */
  vouchedBy: string;
  /** the same when the organisation has proved no website */
  noDomain: string;
  notVerified: string;
  tooMany: string;
  threeWords: string;
  unavailable: string;
  reportButton: string;
  reportHint: string;
  send: string;
  sending: string;
  cancel: string;
  sent: string;
  failed: string;
  empty: string;
  reportsTooMany: string;
  callerNumber: string;
  claimedName: string;
  note: string;
};

/** The loader's (the /download snippet's and /in-a-call's) message when /widget.js cannot be loaded. */
export type LoaderTexts = { loadFailed: string };

export type InACallTexts = {
  title: string;
  heading: string;
  intro: string;
  steps: readonly [string, string, string, string];
  note: string;
  widgetRegion: string;
  languageLabel: string;
};

export type Catalogue = { widget: WidgetTexts; loader: LoaderTexts; inACall: InACallTexts };

/** "Verified: {name}" + {name: "Ann"} → "Verified: Ann" (values are inserted as they are, never re-read). */
export function fillIn(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? "");
}
