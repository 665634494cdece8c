import { Suspense, useEffect, useRef } from "react";
import { Outlet, useLocation, useNavigationType } from "react-router";
import { NavBar } from "./nav-bar";

/** Focus without scrolling: a new page starts at its top (see ScrollToTop), under the sticky header. */
function focusMain() {
  document.getElementById("main")?.focus({ preventScroll: true });
}

/** A link or redirect starts the new page at its top; Back and Forward leave the browser's own restoring alone. */
function ScrollToTop() {
  const { pathname } = useLocation();
  const navigationType = useNavigationType();
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each path change on purpose
  useEffect(() => {
    if (navigationType !== "POP") window.scrollTo(0, 0);
  }, [pathname]);
  return null;
}

/** The frame of every page: skip link, navigation bar, the page, footer. */
export function Layout() {
  const location = useLocation();
  const shownPath = useRef(location.pathname);

  // After a navigation, move focus to the new page so screen readers start at its content. The page
  // first opened keeps the focus at the start (its first Tab reaches the skip link), also when React runs
  // this effect again for the same page (as it does once a page loaded on first visit is shown).
  useEffect(() => {
    if (shownPath.current === location.pathname) return;
    shownPath.current = location.pathname;
    focusMain();
  }, [location.pathname]);

  return (
    <div className="shell" lang="en-GB">
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
      <ScrollToTop />
      <footer className="site-footer">
        <p>© {new Date().getFullYear()} CallProof, all rights reserved.</p>
      </footer>
    </div>
  );
}
