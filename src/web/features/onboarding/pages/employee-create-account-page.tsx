import { type FormEvent, useId, useState } from "react";
import { Navigate, useLocation } from "react-router";
import { MESSAGES } from "../../../../shared/messages";
import { employeePasswordProblem } from "../../../../shared/onboarding";
import { paths } from "../../../../shared/paths";
import { emailSchema } from "../../../../shared/validation";
import { Notice } from "../../../components/ui/notice";
import { Page } from "../../../components/ui/page";
import { SubmitButton } from "../../../components/ui/submit-button";
import { TextField } from "../../../components/ui/text-field";
import { errorMessage } from "../../../lib/api";
import { onboardingApi } from "../api";
import { SignupDone } from "../components/signup-done";
import { TermsConsent } from "../components/terms-consent";
import { type EmployeeSignupState, readEmployeeSignupState } from "../signup-state";
import "../onboarding.css";

type FieldKey = "email" | "fullName" | "password" | "confirmPassword" | "terms" | "form";
type Problem = { field: FieldKey; message: string };

const PASSWORD_HINT = "At least 8 characters, with a capital letter and a special character such as ! or #.";

/** Employee registration; reachable only from a valid employee access code (navigation state). */
export function EmployeeCreateAccountPage() {
  const location = useLocation();
  const signup = readEmployeeSignupState(location.state);
  if (!signup) return <Navigate to={paths.signupEmployee} replace />;
  return <EmployeeForm signup={signup} />;
}

/** The part before "@": what was typed, or the full address cut back when it ends in the company domain. */
function localPartOf(typed: string, domain: string): string | null {
  const value = typed.trim();
  const at = value.lastIndexOf("@");
  if (at === -1) return value;
  return value.slice(at + 1).toLowerCase() === domain ? value.slice(0, at) : null;
}

function EmployeeForm({ signup }: { signup: EmployeeSignupState }) {
  const { code, companyDomain, website } = signup;
  const errorId = useId();
  const suffixId = useId();
  const [localPart, setLocalPart] = useState("");
  const [fullName, setFullName] = useState("");
  const [password, setPassword] = useState("");
  const [confirmPassword, setConfirmPassword] = useState("");
  const [agreed, setAgreed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [doneEmail, setDoneEmail] = useState<string | null>(null);

  function check(): Problem | { email: string } {
    const local = localPartOf(localPart, companyDomain);
    if (local === null) return { field: "email", message: `Your email address must end in @${companyDomain}.` };
    if (!local) return { field: "email", message: "Email is required." };
    const email = emailSchema.safeParse(`${local}@${companyDomain}`);
    if (!email.success) return { field: "email", message: "Enter a valid email address." };
    if (!fullName.trim()) return { field: "fullName", message: "Full name is required." };
    const passwordProblem = employeePasswordProblem(password, confirmPassword);
    if (passwordProblem) {
      const field = passwordProblem === MESSAGES.passwordsDoNotMatch ? "confirmPassword" : "password";
      return { field, message: passwordProblem };
    }
    if (!agreed) return { field: "terms", message: MESSAGES.mustAgreeToTerms };
    return { email: email.data };
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const result = check();
    if ("field" in result) {
      setProblem(result);
      return;
    }
    setProblem(null);
    setBusy(true);
    try {
      await onboardingApi.registerEmployee({
        email: result.email,
        password,
        fullName: fullName.trim(),
        accessCode: code,
        website,
      });
      setDoneEmail(result.email);
    } catch (err) {
      setProblem({ field: "form", message: errorMessage(err, MESSAGES.signupFailed) });
    } finally {
      setBusy(false);
    }
  }

  if (doneEmail) {
    return (
      <Page title="Create your employee account" width="narrow">
        <SignupDone email={doneEmail} />
      </Page>
    );
  }

  const errorFor = (field: FieldKey) =>
    problem?.field === field ? (
      <Notice tone="error" id={`${errorId}-${field}`}>
        {problem.message}
      </Notice>
    ) : null;
  const describedBy = (field: FieldKey) => (problem?.field === field ? `${errorId}-${field}` : undefined);

  return (
    <Page
      title="Create your employee account"
      width="narrow"
      intro={<p>Your account joins your employer's CallProof organisation. All fields are required.</p>}
    >
      <form className="card form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={`${errorId}-email`} className="field__label">
            Work email (your address at {companyDomain})
          </label>
          <p id={`${errorId}-email-hint`} className="field__hint">
            Type the part before the @; your address will end in @{companyDomain}.
          </p>
          <div className="email-split">
            <input
              id={`${errorId}-email`}
              className="field__input email-split__local"
              name="emailLocalPart"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              required
              value={localPart}
              onChange={(e) => setLocalPart(e.target.value)}
              aria-invalid={problem?.field === "email" || undefined}
              aria-describedby={[suffixId, `${errorId}-email-hint`, describedBy("email")].filter(Boolean).join(" ")}
            />
            <span id={suffixId} className="email-split__domain">
              @{companyDomain}
            </span>
          </div>
        </div>
        {errorFor("email")}
        <TextField
          label="Full name"
          name="fullName"
          autoComplete="name"
          required
          value={fullName}
          onChange={(e) => setFullName(e.target.value)}
          describedBy={describedBy("fullName")}
        />
        {errorFor("fullName")}
        <TextField
          label="Website"
          name="website"
          hint="Your employer's website, set by your employer."
          readOnly
          aria-readonly="true"
          value={website}
          className="field--locked"
        />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="new-password"
          required
          hint={PASSWORD_HINT}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          describedBy={describedBy("password")}
        />
        {errorFor("password")}
        <TextField
          label="Confirm password"
          type="password"
          name="confirmPassword"
          autoComplete="new-password"
          required
          value={confirmPassword}
          onChange={(e) => setConfirmPassword(e.target.value)}
          describedBy={describedBy("confirmPassword")}
        />
        {errorFor("confirmPassword")}
        <TermsConsent checked={agreed} onChange={setAgreed} errorId={describedBy("terms")} />
        {errorFor("terms")}
        <SubmitButton busy={busy}>Create account</SubmitButton>
        {errorFor("form")}
      </form>
    </Page>
  );
}
