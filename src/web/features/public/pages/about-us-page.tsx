import { IDENTITY_CODE, SESSION, SIGN_IN } from "@shared/constants";
import { paths } from "@shared/paths";
import { Page } from "@web/components/ui/page";
import { Link } from "react-router";

const GETTING_STARTED = [
  {
    title: "Set up your organisation",
    text: "An employer administrator signs up with an invitation code from the CallProof team and a company email. We check the organisation and activate the account.",
  },
  {
    title: "Invite your staff",
    text: "From the employer dashboard, generate an access code for the number of staff you need. Employees sign up with it, using an email on your company domain.",
  },
  {
    title: "Add the widget to your website",
    text: "Paste the CallProof snippet into your site. Customers can then check a caller's three-word code right where they already trust you.",
  },
];

const SECURITY_FEATURES = [
  {
    title: "Two-step sign-in",
    text: `Every sign-in needs the password and a ${SIGN_IN.codeDigits}-digit code sent by email. The code lasts ${SIGN_IN.codeLifetimeMs / 60_000} minutes and allows ${SIGN_IN.codeMaxTries} tries.`,
  },
  {
    title: "Single-use codes, valid 1 minute",
    text: `An identity code expires ${IDENTITY_CODE.lifetimeMs / 1000} seconds after it is generated and verifies only once, even if two people try it at the same moment.`,
  },
  {
    title: "8.6 billion combinations",
    text: "Codes are three words drawn at random from a list of 2,048, giving about 8.6 billion possible codes.",
  },
  {
    title: "Domain locking",
    text: "A code verifies only through the widget on its own organisation's website (its email domain, its website or their subdomains).",
  },
  {
    title: "Rate limits",
    text: `Each user can generate ${IDENTITY_CODE.generatePerWindow} codes a minute, each visitor can check ${IDENTITY_CODE.lookupsPerWindow} codes an hour, and repeated wrong passwords or sign-in codes lock further attempts for a while.`,
  },
  {
    title: "Audit log of every action",
    text: "Sign-ins, code generation, verifications and account changes are recorded in an append-only audit log, without ever storing secrets.",
  },
  {
    title: "Hashed secrets",
    text: "Passwords are hashed with argon2id. Session tokens, sign-in codes, reset links and identity codes are stored only as hashes.",
  },
  {
    title: "Employer-verified accounts",
    text: `Employer accounts are invite-only and activated by our team; employees need their employer's access code and a matching email domain. Sessions end after ${SESSION.idleMs / 60_000} idle minutes.`,
  },
];

/** About CallProof: the idea, how to start and how it is secured. */
export function AboutUsPage() {
  return (
    <Page
      title="About CallProof"
      documentTitle="About Us"
      intro={
        <>
          <p>
            Phone scams work because anyone can claim to be from your bank, your energy supplier or your council. A
            caller's number can be faked and a confident voice proves nothing.
          </p>
          <p>
            CallProof gives organisations a simple way to prove that a caller really works for them: the caller reads
            out a fresh three-word code, and the customer checks it on the organisation's own website. If the code does
            not verify, the customer knows to hang up and call back on the official number.
          </p>
        </>
      }
    >
      <section className="section" aria-labelledby="start-title">
        <h2 id="start-title">Getting started</h2>
        <ol className="steps">
          {GETTING_STARTED.map((step) => (
            <li key={step.title} className="step">
              <h3>{step.title}</h3>
              <p>{step.text}</p>
            </li>
          ))}
        </ol>
        <p>
          Ready? <Link to={paths.selectSignup}>Choose how to sign up</Link>.
        </p>
      </section>

      <section className="section" aria-labelledby="security-title">
        <h2 id="security-title">Security features</h2>
        <ul className="features">
          {SECURITY_FEATURES.map((feature) => (
            <li key={feature.title} className="feature">
              <h3>{feature.title}</h3>
              <p>{feature.text}</p>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}
