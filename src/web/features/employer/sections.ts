import { paths } from "@shared/paths";

/** The employer dashboard's sections, each a page of its own under the section navigation, in its order. */
export const EMPLOYER_SECTIONS = [
  { path: paths.employerDashboard, label: "People", superuserOnly: false },
  { path: paths.employerFraud, label: "Fraud and reports", superuserOnly: true },
  { path: paths.employerSites, label: "Sites and widget", superuserOnly: true },
  { path: paths.employerIntegrations, label: "Integrations", superuserOnly: true },
  { path: paths.employerAudit, label: "Audit", superuserOnly: true },
] as const;

export const EMPLOYER_SECTIONS_LABEL = "Employer dashboard sections";
