import { paths } from "@shared/paths";
import type { ComponentType, ReactNode } from "react";
import { createBrowserRouter, Navigate, Outlet, type RouteObject } from "react-router";
import { ForgotPasswordPage } from "../features/auth/pages/forgot-password-page";
import { LoginPage } from "../features/auth/pages/login-page";
import { VerifyEmailPage } from "../features/auth/pages/verify-email-page";
import { AboutUsPage } from "../features/public/pages/about-us-page";
import { ContactPage } from "../features/public/pages/contact-page";
import { HomePage } from "../features/public/pages/home-page";
import { UnauthorizedPage } from "../features/public/pages/unauthorized-page";
import { AuthProvider } from "../lib/auth";
import { ErrorPage } from "./error-page";
import { RequireRole, SignedInOnly } from "./guards";
import { Layout } from "./layout";

/** A page behind a guard (the guard decides what is shown instead), its code loaded on first visit. */
function guarded(path: string, guard: (page: ReactNode) => ReactNode, load: () => Promise<ComponentType>): RouteObject {
  return {
    path,
    element: guard(<Outlet />),
    children: [{ index: true, lazy: async () => ({ Component: await load() }) }],
  };
}

/*
 * Every page of the app, plus /unauthorized; anything else goes home.
 * The marketing and sign-in pages are in the first bundle; the rest (forms that use the
 * shared zod schemas, dashboards) load on first visit, so the public pages stay small.
 */
export const router = createBrowserRouter([
  {
    element: (
      <AuthProvider>
        <Layout />
      </AuthProvider>
    ),
    errorElement: <ErrorPage />,
    hydrateFallbackElement: <p className="page-status">Loading…</p>,
    children: [
      { path: paths.home, element: <HomePage /> },
      { path: paths.login, element: <LoginPage /> },
      { path: paths.forgotPassword, element: <ForgotPasswordPage /> },
      {
        path: paths.resetPassword,
        lazy: () =>
          import("../features/auth/pages/reset-password-page").then((m) => ({ Component: m.ResetPasswordPage })),
      },
      { path: paths.verifyEmail, element: <VerifyEmailPage /> },
      {
        path: paths.selectSignup,
        lazy: () =>
          import("../features/onboarding/pages/select-signup-page").then((m) => ({ Component: m.SelectSignupPage })),
      },
      {
        path: paths.signupEmployee,
        lazy: () =>
          import("../features/onboarding/pages/signup-employee-page").then((m) => ({
            Component: m.SignupEmployeePage,
          })),
      },
      {
        path: paths.employeeCreateAccount,
        lazy: () =>
          import("../features/onboarding/pages/employee-create-account-page").then((m) => ({
            Component: m.EmployeeCreateAccountPage,
          })),
      },
      {
        path: paths.employerAccessCode,
        lazy: () =>
          import("../features/onboarding/pages/employer-access-code-page").then((m) => ({
            Component: m.EmployerAccessCodePage,
          })),
      },
      {
        path: paths.signupEmployer,
        lazy: () =>
          import("../features/onboarding/pages/signup-employer-page").then((m) => ({
            Component: m.SignupEmployerPage,
          })),
      },
      {
        path: paths.inACall,
        lazy: () => import("../features/codes/pages/in-a-call-page").then((m) => ({ Component: m.InACallPage })),
      },
      { path: paths.aboutUs, element: <AboutUsPage /> },
      { path: paths.contact, element: <ContactPage /> },
      { path: paths.unauthorized, element: <UnauthorizedPage /> },
      guarded(
        paths.download,
        (page) => <SignedInOnly>{page}</SignedInOnly>,
        () => import("../features/codes/pages/download-page").then((m) => m.DownloadPage),
      ),
      guarded(
        paths.dashboard,
        (page) => <RequireRole otherwise={paths.login}>{page}</RequireRole>,
        () => import("../features/codes/pages/dashboard-page").then((m) => m.DashboardPage),
      ),
      guarded(
        paths.employerDashboard,
        (page) => (
          <RequireRole allow={["admin", "superuser"]} otherwise={paths.unauthorized}>
            {page}
          </RequireRole>
        ),
        () => import("../features/employer/pages/employer-dashboard-page").then((m) => m.EmployerDashboardPage),
      ),
      guarded(
        paths.admin,
        (page) => (
          <RequireRole allow={["admin"]} otherwise={paths.unauthorized}>
            {page}
          </RequireRole>
        ),
        () => import("../features/admin/pages/admin-page").then((m) => m.AdminPage),
      ),
      guarded(
        paths.account,
        (page) => <RequireRole otherwise={paths.login}>{page}</RequireRole>,
        () => import("../features/account/pages/account-page").then((m) => m.AccountPage),
      ),
      // The admin dashboard's other name: the specification lands admins on /admin-dashboard.
      { path: paths.adminDashboard, element: <Navigate to={paths.admin} replace /> },
      { path: "*", element: <Navigate to={paths.home} replace /> },
    ],
  },
]);
