import { NavLink } from "react-router";
import { EMPLOYER_SECTIONS, EMPLOYER_SECTIONS_LABEL } from "../sections";

/**
 * The dashboard's sections as links (the current one marked `aria-current="page"`): a row of tabs on a
 * desktop, a row that scrolls sideways on a phone; each is a link, so Tab and Enter reach it.
 */
export function SectionNav() {
  return (
    <nav className="section-nav" aria-label={EMPLOYER_SECTIONS_LABEL}>
      <ul className="section-nav__list">
        {EMPLOYER_SECTIONS.map((section) => (
          <li key={section.path}>
            <NavLink to={section.path} end className="section-nav__link">
              {section.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
