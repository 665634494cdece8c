import { useEffect, useRef } from "react";
import { NavLink, useLocation } from "react-router";
import { EMPLOYER_SECTIONS, EMPLOYER_SECTIONS_LABEL } from "../sections";

/** Scrolls a link into its row's view, as little as needed (the row scrolls sideways on a phone). */
const reveal = (link: Element) => link.scrollIntoView({ block: "nearest", inline: "nearest" });

/**
 * The dashboard's sections as links (the current one marked `aria-current="page"`): a row of tabs on a
 * desktop, a row that scrolls sideways on a phone; each is a link, so Tab and Enter reach it. The current
 * section's link and the focused one are scrolled into the row's view: a browser does not scroll a row
 * for a link it shows in part, which would leave the focused link cut off.
 */
export function SectionNav() {
  const list = useRef<HTMLUListElement>(null);
  const { pathname } = useLocation();
  useEffect(() => {
    void pathname;
    const current = list.current?.querySelector('[aria-current="page"]');
    const row = list.current;
    // Only the row scrolls: the page stays where it is.
    if (current instanceof HTMLElement && row) {
      const left = current.getBoundingClientRect().left - row.getBoundingClientRect().left + row.scrollLeft;
      const right = left + current.offsetWidth;
      if (left < row.scrollLeft) row.scrollLeft = left;
      else if (right > row.scrollLeft + row.clientWidth) row.scrollLeft = right - row.clientWidth;
    }
  }, [pathname]);
  return (
    <nav className="section-nav" aria-label={EMPLOYER_SECTIONS_LABEL}>
      <ul className="section-nav__list" ref={list}>
        {EMPLOYER_SECTIONS.map((section) => (
          <li key={section.path}>
            <NavLink to={section.path} end className="section-nav__link" onFocus={(e) => reveal(e.currentTarget)}>
              {section.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
