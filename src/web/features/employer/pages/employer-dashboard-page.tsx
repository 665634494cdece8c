import { Page } from "@web/components/ui/page";
import { useAuth } from "@web/lib/auth";
import { Suspense } from "react";
import { Outlet, useLocation } from "react-router";
import { SectionNav } from "../components/section-nav";
import { EMPLOYER_SECTIONS } from "../sections";
import "../employer.css";

/**
 * The employer's dashboard (/employer-dashboard and its sections): the section navigation and the section
 * shown. A visiting admin sees the first section only (the others are the organisation's own tools).
 */
export function EmployerDashboardPage() {
  const { isSuperuser } = useAuth();
  const { pathname } = useLocation();
  const section = EMPLOYER_SECTIONS.find((s) => s.path === pathname.replace(/\/+$/, ""));
  const first = section === EMPLOYER_SECTIONS[0];
  return (
    <Page
      title="Employer dashboard"
      documentTitle={section && !first ? `${section.label} · Employer dashboard` : "Employer dashboard"}
    >
      {isSuperuser && <SectionNav />}
      <Suspense
        fallback={
          <p className="page-status" role="status">
            Loading…
          </p>
        }
      >
        <Outlet />
      </Suspense>
    </Page>
  );
}
