/** Every route of the web app, in one place. Server e-mail links use these too. */
export const paths = {
  home: "/",
  login: "/login",
  forgotPassword: "/forgot-password",
  resetPassword: "/reset-password",
  selectSignup: "/select-signup",
  signupEmployee: "/signup-employee",
  employeeCreateAccount: "/employee-create-account",
  employerAccessCode: "/employer-access-code",
  signupEmployer: "/signup-employer",
  verifyEmail: "/verify-email",
  inACall: "/in-a-call",
  aboutUs: "/about-us",
  contact: "/contact",
  download: "/download",
  dashboard: "/dashboard",
  /** the employer dashboard's first section: the organisation, its access code and its users */
  employerDashboard: "/employer-dashboard",
  /** its other sections */
  employerFraud: "/employer-dashboard/fraud",
  employerSites: "/employer-dashboard/sites",
  employerIntegrations: "/employer-dashboard/integrations",
  employerAudit: "/employer-dashboard/audit",
  admin: "/admin",
  /** another name of /admin: it leads there */
  adminDashboard: "/admin-dashboard",
  account: "/account",
  unauthorized: "/unauthorized",
} as const;

/** Where each role lands after sign-in (/admin-dashboard leads to /admin too). */
export const landingFor = {
  admin: paths.admin,
  superuser: paths.employerDashboard,
  client: paths.dashboard,
} as const;
