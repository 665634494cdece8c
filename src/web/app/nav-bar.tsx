import type { Role } from "@shared/constants";
import { paths } from "@shared/paths";
import { useCallback, useEffect, useRef, useState } from "react";
import { Link, NavLink, useLocation } from "react-router";
import { useAuth } from "../lib/auth";

/** `section`: the link is current on the pages under it too (the employer dashboard's sections) */
type NavItem = { to: string; label: string; section?: boolean };

/** The navigation links for a role; while the role is unknown, only the links everyone sees. */
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
  if (role === "superuser" || role === "admin")
    items.push({ to: paths.employerDashboard, label: "Add Users", section: true });
  if (role === "admin") items.push({ to: paths.admin, label: "Admin" });
  items.push({ to: paths.account, label: "Account" });
  return items;
}

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
          <NavLink to={item.to} end={!item.section} className="nav-link" onClick={onNavigate}>
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
  const panel = useRef<HTMLElement>(null);
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
    panel.current?.querySelector<HTMLElement>("a[href], button")?.focus();
    // While the menu is open the page behind it is out of reach: not focusable, not scrollable.
    const behind = [...document.querySelectorAll<HTMLElement>("#main, .site-footer, .skip-link")];
    for (const el of behind) el.inert = true;
    const previousOverflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") close(true);
      if (event.key !== "Tab") return;
      // Focus stays in the menu: Tab from its last control goes to the menu button, Shift+Tab back.
      const cycle = [
        menuButton.current,
        ...(panel.current?.querySelectorAll<HTMLElement>("a[href], button:not([disabled])") ?? []),
      ].filter((el): el is HTMLElement => el !== null);
      const first = cycle[0];
      const last = cycle[cycle.length - 1];
      const at = document.activeElement;
      if (!event.shiftKey && (at === last || !cycle.includes(at as HTMLElement))) {
        event.preventDefault();
        first?.focus();
      } else if (event.shiftKey && at === first) {
        event.preventDefault();
        last?.focus();
      }
    };
    // A press outside the panel and its button closes it, like a backdrop.
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!panel.current?.contains(target) && !menuButton.current?.contains(target)) close(false);
    };
    // Growing past the breakpoint leaves no menu button: close the panel.
    const wide = window.matchMedia("(min-width: 64rem)");
    const onWide = () => wide.matches && close(false);
    document.addEventListener("keydown", onKeyDown);
    document.addEventListener("pointerdown", onPointerDown);
    wide.addEventListener("change", onWide);
    return () => {
      for (const el of behind) el.inert = false;
      document.body.style.overflow = previousOverflow;
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
      wide.removeEventListener("change", onWide);
    };
  }, [open, close]);

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
          aria-label={open ? "Close menu" : "Open menu"}
          aria-expanded={open}
          aria-controls="mobile-menu"
          onClick={() => (open ? close(false) : setOpen(true))}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            {open ? (
              <path d="M6 6l12 12M18 6 6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            ) : (
              <path d="M3 6h18M3 12h18M3 18h18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            )}
          </svg>
        </button>
      </div>
      <div className="menu-backdrop" data-open={open || undefined} aria-hidden="true" />
      <nav
        ref={panel}
        id="mobile-menu"
        className="mobile-menu"
        aria-label="Menu"
        data-open={open || undefined}
        inert={!open}
      >
        <NavLinks items={items} onNavigate={() => close(false)} />
        {role && signOutButton}
      </nav>
    </header>
  );
}
