import { useEffect, useRef } from "react";
import { Outlet, ScrollRestoration, useLocation } from "react-router";
import { NavBar } from "./nav-bar";

/** Focus without scrolling: ScrollRestoration puts the new page at its top, under the sticky header. */
function focusMain() {
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
    focusMain();
  }, [location.pathname]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <NavBar />
      <main id="main" className="main" tabIndex={-1}>
        <Outlet />
      </main>
      <footer className="site-footer">
        <p>© {new Date().getFullYear()} CallProof. All rights reserved.</p>
      </footer>
      <ScrollRestoration />
    </div>
  );
}
