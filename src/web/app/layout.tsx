import { Suspense, useEffect, useRef } from "react";
import { Outlet, useLocation } from "react-router";
import { NavBar } from "./nav-bar";

/** A new page starts at its top, with focus on its content (without scrolling under the sticky header). */
function showNewPage() {
  window.scrollTo(0, 0);
  document.getElementById("main")?.focus({ preventScroll: true });
}

/** The frame of every page: skip link, navigation bar, the page, footer. */
export function Layout() {
  const location = useLocation();
  const firstRender = useRef(true);

  // After a navigation, move focus to the new page so screen readers start at its content.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each path change on purpose
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    showNewPage();
  }, [location.pathname]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <NavBar />
      <main id="main" className="main" tabIndex={-1}>
        <Suspense
          fallback={
            <p className="page-status" role="status">
              Loading…
            </p>
          }
        >
          <Outlet />
        </Suspense>
      </main>
      <footer className="site-footer">
        <p>© {new Date().getFullYear()} CallProof. All rights reserved.</p>
      </footer>
    </div>
  );
}
