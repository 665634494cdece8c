import { IDENTITY_CODE, MINIMUM_AGE } from "@shared/constants";

const CODE_SECONDS = IDENTITY_CODE.lifetimeMs / 1000;

/** The Terms & Conditions shown on both sign-up forms: eight numbered sections. */
export function TermsText() {
  return (
    <>
      <p className="muted">These terms apply to every CallProof account. Please read them before you sign up.</p>
      <ol className="legal-sections">
        <li>
          <h3>About these terms</h3>
          <p>
            CallProof lets organisations prove a caller's identity during phone calls. By creating an account you agree
            to these terms and to our Privacy Policy. If you sign up for an organisation, you confirm that you may
            accept these terms on its behalf.
          </p>
        </li>
        <li>
          <h3>Who may use CallProof</h3>
          <p>
            You must be at least {MINIMUM_AGE} years old to create an account. Employer accounts are by invitation only,
            need a company email address and are verified by hand by the CallProof team before they can sign in.
            Employees sign up with an access code from their employer, using an email address at the employer's domain.
          </p>
        </li>
        <li>
          <h3>Your account</h3>
          <p>
            Keep your password secret and do not share your account. Every sign-in needs a one-time code sent to your
            email. Tell us at once if you think someone else has used your account. You are responsible for what is done
            with your account.
          </p>
        </li>
        <li>
          <h3>Identity codes</h3>
          <p>
            An identity code is three words, valid for {CODE_SECONDS} seconds and usable once. Generate a code only when
            you are on a call, and share it only with the person you are speaking to. A verified code shows the person's
            name, company and website to the customer who checks it.
          </p>
        </li>
        <li>
          <h3>Acceptable use</h3>
          <p>
            Do not use CallProof to deceive anyone, to pretend to be someone else, or to get round its limits and
            security checks. Do not try to guess codes, overload the service, or reach data that is not yours. We may
            limit how often codes are generated and checked.
          </p>
        </li>
        <li>
          <h3>Employers' responsibilities</h3>
          <p>
            Employers decide who receives their access codes, keep their list of users up to date, and deactivate users
            who leave. The verification widget may only be placed on the organisation's own website.
          </p>
        </li>
        <li>
          <h3>Availability and liability</h3>
          <p>
            We work to keep CallProof available and secure, but we cannot promise it will always be free of faults or
            interruptions. CallProof helps you judge who is calling; it does not replace your own security checks.
            Nothing in these terms limits liability that cannot be limited by law.
          </p>
        </li>
        <li>
          <h3>Suspension, changes and law</h3>
          <p>
            We may suspend or deactivate accounts that break these terms; employers may deactivate their own users. We
            may change these terms and will tell you of important changes. These terms are governed by the law of
            England and Wales.
          </p>
        </li>
      </ol>
    </>
  );
}

/** The Privacy Policy shown on both sign-up forms (UK GDPR). */
export function PrivacyText({ supportEmail }: { supportEmail: string | null | undefined }) {
  return (
    <>
      <p className="muted">
        This policy explains how CallProof uses personal data, under the UK General Data Protection Regulation (UK GDPR)
        and the Data Protection Act 2018. CallProof is the controller of the data described here.
      </p>
      <h3>Data we collect</h3>
      <ul>
        <li>Account details: your full name, work email address, company name and website.</li>
        <li>Your password, stored only as a one-way hash.</li>
        <li>
          Activity records: sign-ins, codes generated and verified, and administrative actions, with their time and IP
          address, kept in an audit log.
        </li>
        <li>Identity codes, stored only as hashes, never in readable form.</li>
      </ul>
      <h3>How we use it</h3>
      <p>
        We use your data to provide the service (performing our contract with you or your employer): to run your
        account, send sign-in codes and verification links, generate and verify identity codes, and show your name,
        company and website to a customer who checks your code. We also use it to keep the service secure and prevent
        abuse (our legitimate interests), and to meet legal obligations.
      </p>
      <h3>Sharing</h3>
      <p>
        Your employer can see your name, email address and how many codes you generated and had verified. A customer who
        checks your code sees your name, company and website. We use service providers for hosting and email delivery,
        who act only on our instructions. We do not sell your data or use it for advertising.
      </p>
      <h3>How long we keep it</h3>
      <p>
        We keep account data while your account exists and for a limited time after it is deactivated. Identity codes
        expire after {CODE_SECONDS} seconds. Audit records are kept for security and accountability.
      </p>
      <h3>Your rights</h3>
      <p>
        You have the right to access your data, to have it corrected or erased, to restrict or object to its use, and to
        data portability. You may also complain to the Information Commissioner's Office (ico.org.uk).
      </p>
      <h3>Cookies</h3>
      <p>
        We use essential cookies only: one that keeps you signed in and one that protects forms against cross-site
        request forgery. We use no analytics or advertising cookies.
      </p>
      <h3>Security</h3>
      <p>
        Passwords, codes and sign-in tokens are stored as hashes, every sign-in needs a one-time code sent by email,
        sessions end after a period of inactivity, and important actions are recorded in an audit log.
      </p>
      <h3>Contact</h3>
      <p>
        For questions or to use your rights, email{" "}
        {supportEmail ? (
          <a href={`mailto:${supportEmail}`}>{supportEmail}</a>
        ) : (
          "our support team (see the Contact Us page)"
        )}
        .
      </p>
    </>
  );
}
