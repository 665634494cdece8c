import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from "react";
import { Link, NavLink, useLocation } from "react-router";
import type { Role } from "../../shared/constants";
import { paths } from "../../shared/paths";
import { useAuth } from "../lib/auth";

type NavItem = { to: string; label: string };

/** The navigation links for a role (spec §2, navigation bar); undefined while the role is unknown. */
function navItems(role: Role | null, loading: boolean): NavItem[] {
  const items: NavItem[] = [
    { to: paths.inACall, label: "In a call?" },
    { to: paths.aboutUs, label: "About Us" },
    { to: paths.contact, label: "Contact Us" },
  ];
  if (loading) return items;
  if (!role) {
    items.push({ to: paths.selectSignup, label: "Sign Up" }, { to: paths.login, label: "Log In" });
    return items;
  }
  items.push({ to: paths.download, label: "Widget" }, { to: paths.dashboard, label: "GenerateID" });
  if (role === "superuser" || role === "admin") items.push({ to: paths.employerDashboard, label: "Add Users" });
  if (role === "admin") items.push({ to: paths.admin, label: "Admin" });
  return items;
}

const FOCUSABLE = 'a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])';

function Logo() {
  return (
    <Link to={paths.home} className="logo">
      <svg className="logo__mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <path fill="currentColor" d="M16 2 4 6.5v8.2c0 7.4 5.1 13.6 12 15.3 6.9-1.7 12-7.9 12-15.3V6.5L16 2z" />
        <path
          fill="none"
          stroke="#fff"
          strokeWidth="3"
          strokeLinecap="round"
          strokeLinejoin="round"
          d="m10.5 16 4 4 7-8"
        />
      </svg>
      <span className="logo__text">CallProof</span>
    </Link>
  );
}

function NavLinks({ items, onNavigate }: { items: NavItem[]; onNavigate?: () => void }) {
  return (
    <ul className="nav-links">
      {items.map((item) => (
        <li key={item.to}>
          <NavLink to={item.to} end className="nav-link" onClick={onNavigate}>
            {item.label}
          </NavLink>
        </li>
      ))}
    </ul>
  );
}

/** The site header: logo, links by role and Sign Out; below the wide breakpoint, a slide-in menu. */
export function NavBar() {
  const { role, loading, signOut, signingOut } = useAuth();
  const items = navItems(role, loading);
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const location = useLocation();

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) menuButton.current?.focus();
  }, []);

  // A navigation closes the menu (focus then goes to the new page's content).
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each location change on purpose
  useEffect(() => {
    setOpen(false);
  }, [location.key]);

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    const previousOverflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    // A press outside the panel closes it, like a backdrop.
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!panel.current?.contains(target) && !menuButton.current?.contains(target)) close(false);
    };
    // Growing past the breakpoint leaves no menu button: close the panel.
    const wide = window.matchMedia("(min-width: 64rem)");
    const onWide = () => wide.matches && close(false);
    document.addEventListener("pointerdown", onPointerDown);
    wide.addEventListener("change", onWide);
    return () => {
      document.body.style.overflow = previousOverflow;
      document.removeEventListener("pointerdown", onPointerDown);
      wide.removeEventListener("change", onWide);
    };
  }, [open, close]);

  // Escape closes; Tab stays inside the open panel.
  function onPanelKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === "Escape") {
      event.stopPropagation();
      close(true);
      return;
    }
    if (event.key !== "Tab" || !panel.current) return;
    const focusable = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  const signOutButton = (
    <button
      type="button"
      className="button button--secondary button--small sign-out"
      onClick={() => void signOut()}
      aria-disabled={signingOut || undefined}
    >
      Sign Out
    </button>
  );

  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Logo />
        <nav className="nav nav--wide" aria-label="Main">
          <NavLinks items={items} />
          {role && signOutButton}
        </nav>
        <button
          ref={menuButton}
          type="button"
          className="menu-button"
          aria-label="Open menu"
          aria-expanded={open}
          aria-controls="mobile-menu"
          onClick={() => setOpen((o) => !o)}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            <path d="M3 6h18M3 12h18M3 18h18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
          </svg>
        </button>
      </div>
      <div className="menu-backdrop" data-open={open || undefined} aria-hidden="true" />
      <div
        ref={panel}
        id="mobile-menu"
        className="mobile-menu"
        role="dialog"
        aria-modal="true"
        aria-label="Menu"
        data-open={open || undefined}
        inert={!open}
        onKeyDown={onPanelKeyDown}
      >
        <div className="mobile-menu__top">
          <span className="mobile-menu__title">Menu</span>
          <button type="button" className="menu-close" aria-label="Close menu" onClick={() => close(true)}>
            <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
              <path d="M6 6l12 12M18 6 6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </button>
        </div>
        <nav aria-label="Main (menu)">
          <NavLinks items={items} onNavigate={() => close(false)} />
          {role && signOutButton}
        </nav>
      </div>
    </header>
  );
}
