import { IDENTITY_CODE } from "@shared/constants";
import { paths } from "@shared/paths";
import { useAuth } from "@web/lib/auth";
import { useDocumentTitle } from "@web/lib/use-document-title";
import { Link } from "react-router";

const LIFETIME_S = IDENTITY_CODE.lifetimeMs / 1000;

/** Marketing home page: what CallProof does, how, and where to start. */
export function HomePage() {
  useDocumentTitle("Prove who is calling");
  const { role } = useAuth();
  return (
    <div className="home">
      <section className="hero" aria-labelledby="hero-title">
        <div className="hero__text">
          <p className="eyebrow">Caller verification for organisations</p>
          <h1 id="hero-title" className="hero__title">
            Prove who is calling, in one minute.
          </h1>
          <p className="hero__lead">
            Scammers pretend to be banks, councils and support desks. With CallProof your staff read out a three-word
            code, and your customer checks it on your own website before sharing anything.
          </p>
          <div className="actions">
            {role ? (
              <Link className="button button--primary" to={paths.dashboard}>
                Generate a code
              </Link>
            ) : (
              <Link className="button button--primary" to={paths.selectSignup}>
                Get started
              </Link>
            )}
            <Link className="button button--secondary" to={paths.inACall}>
              Check a caller's code
            </Link>
          </div>
        </div>
        <div className="hero__demo" aria-hidden="true">
          <div className="code-card">
            <p className="code-card__label">Identity code</p>
            <p className="code-card__words">maple / orbit / tunnel</p>
            <p className="code-card__timer">Expires in: {LIFETIME_S} seconds</p>
          </div>
          <div className="code-card code-card--verified">
            <span className="code-card__tick">✓</span>
            <p>
              Verified: <strong>Jane Doe</strong>, Example Bank
            </p>
          </div>
        </div>
      </section>

      <section className="section" aria-labelledby="how-title">
        <h2 id="how-title">How it works</h2>
        <ol className="steps">
          <li className="step">
            <h3>Generate a code</h3>
            <p>
              Before or during the call, your employee signs in and presses Generate Identity Code. CallProof gives them
              three random words.
            </p>
          </li>
          <li className="step">
            <h3>Read it out</h3>
            <p>The employee reads the three words to the customer. No numbers to mishear, nothing to spell out.</p>
          </li>
          <li className="step">
            <h3>The customer verifies</h3>
            <p>
              The customer types the words into the CallProof widget on your organisation's website and sees the
              caller's name and company, or a clear warning.
            </p>
          </li>
        </ol>
      </section>

      <section className="section" aria-labelledby="why-title">
        <h2 id="why-title">Built so a code cannot be reused or faked</h2>
        <ul className="features">
          <li className="feature">
            <h3>Valid for {LIFETIME_S} seconds</h3>
            <p>Each code expires one minute after it is made, so an overheard code is soon worthless.</p>
          </li>
          <li className="feature">
            <h3>Single use</h3>
            <p>A code verifies once. A second look-up with the same words fails.</p>
          </li>
          <li className="feature">
            <h3>Domain locking</h3>
            <p>
              Your widget only verifies codes from your own organisation, so a look-alike site cannot vouch for a
              scammer.
            </p>
          </li>
          <li className="feature">
            <h3>Over 3.4 billion combinations</h3>
            <p>Three words from a list of 2,048 give about 8.6 billion possible codes, and guessing is rate-limited.</p>
          </li>
        </ul>
      </section>

      <section className="section cta" aria-labelledby="cta-title">
        <h2 id="cta-title">Protect your customers from impersonation</h2>
        <p>
          Employer accounts are by invitation and verified by the CallProof team. Employees join with an access code
          from their employer.
        </p>
        <div className="actions">
          <Link className="button button--primary" to={paths.selectSignup}>
            Create an account
          </Link>
          <Link className="button button--secondary" to={paths.aboutUs}>
            Learn more about security
          </Link>
        </div>
      </section>
    </div>
  );
}
