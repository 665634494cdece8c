import { paths } from "@shared/paths";
import { Page } from "@web/components/ui/page";
import { Link } from "react-router";
import "../onboarding.css";

/** Choose the sign-up kind: an employer (admin) account, or an employee account with an access code. */
export function SelectSignupPage() {
  return (
    <Page title="Sign Up" intro="CallProof accounts come in two kinds. Choose the one that fits you.">
      <div className="signup-choices">
        <section className="card signup-choice" aria-labelledby="choice-employer">
          <h2 id="choice-employer">For employers</h2>
          <p>Set up CallProof for your organisation and manage the people who call your customers.</p>
          <ul className="signup-choice__points">
            <li>You need an invitation (an access code) from the CallProof team: sign-up is invite-only.</li>
            <li>Admin accounts need a company email address and are verified by hand before you can log in.</li>
            <li>Once verified, you generate access codes for your employees.</li>
          </ul>
          <Link className="button button--primary" to={paths.employerAccessCode}>
            Create an admin account
          </Link>
        </section>
        <section className="card signup-choice" aria-labelledby="choice-employee">
          <h2 id="choice-employee">For employees</h2>
          <p>Join your organisation's CallProof account to prove who you are when you call customers.</p>
          <ul className="signup-choice__points">
            <li>You need an access code from your employer's CallProof admin.</li>
            <li>Your email address must be at the same domain as your admin's (for example name@yourcompany.com).</li>
          </ul>
          <Link className="button button--primary" to={paths.signupEmployee}>
            I am an employee with an access code
          </Link>
        </section>
      </div>
      <p className="form__after">
        Already have an account? <Link to={paths.login}>Log In</Link>
      </p>
    </Page>
  );
}
