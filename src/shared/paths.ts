/** Every route of the web app (spec §2), in one place. Server e-mail links use these too. */
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
  employerDashboard: "/employer-dashboard",
  admin: "/admin",
  account: "/account",
  unauthorized: "/unauthorized",
} as const;

/** Where each role lands after sign-in (spec §2; /admin-dashboard is served as /admin). */
export const landingFor = {
  admin: paths.admin,
  superuser: paths.employerDashboard,
  client: paths.dashboard,
} as const;
