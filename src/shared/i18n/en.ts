import { LOOKUP_TEXT, WIDGET_TEXT } from "../codes";
import { REPORT_FIELDS, REPORT_FORM_TEXT } from "../reports";
import type { InACallTexts, LoaderTexts, WidgetTexts } from "./types";

/** English: the texts as they always were (the widget carries this one; the others load when needed). */
export const widget: WidgetTexts = {
  title: WIDGET_TEXT.title,
  label: WIDGET_TEXT.label,
  hint: WIDGET_TEXT.hint,
  button: WIDGET_TEXT.button,
  checking: WIDGET_TEXT.checking,
  verified: "Verified: {name}",
  verifiedCompany: "Verified: {name} from {company}",
  verifiedDomain: "Verified: {name} ({domain})",
  verifiedCompanyDomain: "Verified: {name} from {company} ({domain})",
  vouchedBy:
    "The organisation has proved that {domain} is its website. If that is not the website of the organisation you expected, end the call.",
  noDomain:
    "This organisation has not proved a website. If you are unsure, end the call and call the organisation back on its official number.",
  notVerified: LOOKUP_TEXT.notVerified,
  tooMany: LOOKUP_TEXT.tooMany,
  threeWords: WIDGET_TEXT.threeWords,
  unavailable: LOOKUP_TEXT.unavailable,
  reportButton: REPORT_FORM_TEXT.reportButton,
  reportHint: REPORT_FORM_TEXT.formHint,
  send: REPORT_FORM_TEXT.send,
  sending: REPORT_FORM_TEXT.sending,
  cancel: REPORT_FORM_TEXT.cancel,
  sent: REPORT_FORM_TEXT.sent,
  failed: REPORT_FORM_TEXT.failed,
  empty: REPORT_FORM_TEXT.empty,
  reportsTooMany: REPORT_FORM_TEXT.tooMany,
  callerNumber: REPORT_FIELDS.callerNumber,
  claimedName: REPORT_FIELDS.claimedName,
  note: REPORT_FIELDS.note,
};

export const loader: LoaderTexts = {
  loadFailed: "Failed to load verification widget. Please refresh the page or check your network connection.",
};

export const inACall: InACallTexts = {
  title: "In a call?",
  heading: "Someone is calling on behalf of an organisation?",
  intro: "Before you share anything, check that they are who they say they are.",
  steps: [
    "Ask the caller for their three-word identity code. They create it in CallProof; it works for one minute and only once.",
    "Type the three words into the box on this page (or in the CallProof box on the organisation's own website) and press Verify.",
    "If it says Verified, check that the name and organisation are the ones the caller gave you.",
    "If the code is not valid, or the caller will not give one, end the call. Call the organisation back on a number you find yourself, such as on its official website or your statement.",
  ],
  note: "A genuine caller never needs your password, PIN or one-time codes, and never minds you checking.",
  widgetRegion: "Verify a caller",
  languageLabel: "Language",
};
