import { paths } from "@shared/paths";
import { type ComponentType, lazy } from "react";
import { Navigate, Route, Routes } from "react-router";
import { HomePage } from "../features/public/pages/home-page";
import { AuthProvider } from "../lib/auth";
import { ErrorBoundary } from "./error-page";
import { RequireRole, SignedInOnly } from "./guards";
import { Layout } from "./layout";

/** A page whose code loads on its first visit (the layout shows "Loading…" meanwhile). */
function lazyPage(load: () => Promise<ComponentType>) {
  return lazy(async () => ({ default: await load() }));
}

const LoginPage = lazyPage(() => import("../features/auth/pages/login-page").then((m) => m.LoginPage));
const ForgotPasswordPage = lazyPage(() =>
  import("../features/auth/pages/forgot-password-page").then((m) => m.ForgotPasswordPage),
);
const ResetPasswordPage = lazyPage(() =>
  import("../features/auth/pages/reset-password-page").then((m) => m.ResetPasswordPage),
);
const VerifyEmailPage = lazyPage(() =>
  import("../features/auth/pages/verify-email-page").then((m) => m.VerifyEmailPage),
);
const SelectSignupPage = lazyPage(() =>
  import("../features/onboarding/pages/select-signup-page").then((m) => m.SelectSignupPage),
);
const SignupEmployeePage = lazyPage(() =>
  import("../features/onboarding/pages/signup-employee-page").then((m) => m.SignupEmployeePage),
);
const EmployeeCreateAccountPage = lazyPage(() =>
  import("../features/onboarding/pages/employee-create-account-page").then((m) => m.EmployeeCreateAccountPage),
);
const EmployerAccessCodePage = lazyPage(() =>
  import("../features/onboarding/pages/employer-access-code-page").then((m) => m.EmployerAccessCodePage),
);
const SignupEmployerPage = lazyPage(() =>
  import("../features/onboarding/pages/signup-employer-page").then((m) => m.SignupEmployerPage),
);
const InACallPage = lazyPage(() => import("../features/codes/pages/in-a-call-page").then((m) => m.InACallPage));
const AboutUsPage = lazyPage(() => import("../features/public/pages/about-us-page").then((m) => m.AboutUsPage));
const ContactPage = lazyPage(() => import("../features/public/pages/contact-page").then((m) => m.ContactPage));
const UnauthorizedPage = lazyPage(() =>
  import("../features/public/pages/unauthorized-page").then((m) => m.UnauthorizedPage),
);
const DownloadPage = lazyPage(() => import("../features/codes/pages/download-page").then((m) => m.DownloadPage));
const DashboardPage = lazyPage(() => import("./dashboard-route").then((m) => m.DashboardRoute));
const EmployerDashboardPage = lazyPage(() =>
  import("../features/employer/pages/employer-dashboard-page").then((m) => m.EmployerDashboardPage),
);
const EmployerPeopleSection = lazyPage(() =>
  import("../features/employer/pages/people-section").then((m) => m.PeopleSection),
);
const EmployerFraudSection = lazyPage(() =>
  import("../features/employer/pages/fraud-section").then((m) => m.FraudSection),
);
const EmployerSitesSection = lazyPage(() =>
  import("../features/employer/pages/sites-section").then((m) => m.SitesSection),
);
const EmployerIntegrationsSection = lazyPage(() =>
  import("../features/employer/pages/integrations-section").then((m) => m.IntegrationsSection),
);
const EmployerAuditSection = lazyPage(() =>
  import("../features/employer/pages/audit-section").then((m) => m.AuditSection),
);
const AdminPage = lazyPage(() => import("../features/admin/pages/admin-page").then((m) => m.AdminPage));
const AccountPage = lazyPage(() => import("../features/account/pages/account-page").then((m) => m.AccountPage));

/*
 * Every page of the app, plus /unauthorized; anything else goes home. Only the home page is in the
 * first bundle with React and the router (declarative routes: the data router would add 17 KB gzip);
 * every other page loads on first visit, so a public page's first load stays under 90 KB gzip.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route
        element={
          <ErrorBoundary>
            <AuthProvider>
              <Layout />
            </AuthProvider>
          </ErrorBoundary>
        }
      >
        <Route path={paths.home} element={<HomePage />} />
        <Route path={paths.login} element={<LoginPage />} />
        <Route path={paths.forgotPassword} element={<ForgotPasswordPage />} />
        <Route path={paths.resetPassword} element={<ResetPasswordPage />} />
        <Route path={paths.verifyEmail} element={<VerifyEmailPage />} />
        <Route path={paths.selectSignup} element={<SelectSignupPage />} />
        <Route path={paths.signupEmployee} element={<SignupEmployeePage />} />
        <Route path={paths.employeeCreateAccount} element={<EmployeeCreateAccountPage />} />
        <Route path={paths.employerAccessCode} element={<EmployerAccessCodePage />} />
        <Route path={paths.signupEmployer} element={<SignupEmployerPage />} />
        <Route path={paths.inACall} element={<InACallPage />} />
        <Route path={paths.aboutUs} element={<AboutUsPage />} />
        <Route path={paths.contact} element={<ContactPage />} />
        <Route path={paths.unauthorized} element={<UnauthorizedPage />} />
        <Route
          path={paths.download}
          element={
            <SignedInOnly>
              <DownloadPage />
            </SignedInOnly>
          }
        />
        <Route
          path={paths.dashboard}
          element={
            <RequireRole otherwise={paths.login}>
              <DashboardPage />
            </RequireRole>
          }
        />
        <Route
          path={paths.employerDashboard}
          element={
            <RequireRole allow={["admin", "superuser"]} otherwise={paths.unauthorized}>
              <EmployerDashboardPage />
            </RequireRole>
          }
        >
          {/* Its sections: the first for an admin too; the others are the organisation's own tools. */}
          <Route index element={<EmployerPeopleSection />} />
          {(
            [
              [paths.employerFraud, <EmployerFraudSection key="fraud" />],
              [paths.employerSites, <EmployerSitesSection key="sites" />],
              [paths.employerIntegrations, <EmployerIntegrationsSection key="integrations" />],
              [paths.employerAudit, <EmployerAuditSection key="audit" />],
            ] as const
          ).map(([path, section]) => (
            <Route
              key={path}
              path={path}
              element={
                <RequireRole allow={["superuser"]} otherwise={paths.employerDashboard}>
                  {section}
                </RequireRole>
              }
            />
          ))}
        </Route>
        <Route
          path={paths.admin}
          element={
            <RequireRole allow={["admin"]} otherwise={paths.unauthorized}>
              <AdminPage />
            </RequireRole>
          }
        />
        <Route
          path={paths.account}
          element={
            <RequireRole otherwise={paths.login}>
              <AccountPage />
            </RequireRole>
          }
        />
        {/* The admin dashboard's other name: the specification lands admins on /admin-dashboard. */}
        <Route path={paths.adminDashboard} element={<Navigate to={paths.admin} replace />} />
        <Route path="*" element={<Navigate to={paths.home} replace />} />
      </Route>
    </Routes>
  );
}
