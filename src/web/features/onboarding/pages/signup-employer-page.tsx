import { type FormEvent, useId, useState } from "react";
import { Navigate, useLocation } from "react-router";
import { MESSAGES } from "../../../../shared/messages";
import { employerPasswordProblem, ONBOARDING_MESSAGES, websiteSchema } from "../../../../shared/onboarding";
import { paths } from "../../../../shared/paths";
import { Notice } from "../../../components/ui/notice";
import { Page } from "../../../components/ui/page";
import { SubmitButton } from "../../../components/ui/submit-button";
import { TextField } from "../../../components/ui/text-field";
import { errorMessage } from "../../../lib/api";
import { onboardingApi } from "../api";
import { SignupDone } from "../components/signup-done";
import { TermsConsent } from "../components/terms-consent";
import { readEmployerSignupState } from "../signup-state";
import "../onboarding.css";

type FieldKey = "fullName" | "companyName" | "website" | "password" | "confirmPassword" | "terms" | "form";
type Problem = { field: FieldKey; message: string };

const PASSWORD_HINT = "At least 8 characters, with an uppercase letter and a special character such as ! or #.";

/** Employer account form; reachable only from a valid Admin access code (navigation state). */
export function SignupEmployerPage() {
  const location = useLocation();
  const signup = readEmployerSignupState(location.state);
  if (!signup) return <Navigate to={paths.employerAccessCode} replace />;
  return <EmployerForm code={signup.code} email={signup.email} />;
}

function EmployerForm({ code, email }: { code: string; email: string }) {
  const errorId = useId();
  const [fullName, setFullName] = useState("");
  const [companyName, setCompanyName] = useState("");
  const [website, setWebsite] = useState("");
  const [password, setPassword] = useState("");
  const [confirmPassword, setConfirmPassword] = useState("");
  const [agreed, setAgreed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [done, setDone] = useState(false);

  /** The client checks: required fields, then the spec's order (match, strength, terms), then the website's form. */
  function check(): Problem | null {
    if (!fullName.trim()) return { field: "fullName", message: "Full name is required." };
    if (!companyName.trim()) return { field: "companyName", message: "Company name is required." };
    if (!website.trim()) return { field: "website", message: "Website is required." };
    const passwordProblem = employerPasswordProblem(password, confirmPassword);
    if (passwordProblem) {
      const field = passwordProblem === MESSAGES.passwordsDoNotMatch ? "confirmPassword" : "password";
      return { field, message: passwordProblem };
    }
    if (!agreed) return { field: "terms", message: MESSAGES.mustAgreeToTerms };
    if (!websiteSchema.safeParse(website).success)
      return { field: "website", message: ONBOARDING_MESSAGES.invalidWebsite };
    return null;
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const found = check();
    setProblem(found);
    if (found) return;
    setBusy(true);
    try {
      await onboardingApi.registerEmployer({
        fullName: fullName.trim(),
        companyName: companyName.trim(),
        website: website.trim(),
        email,
        password,
        confirmPassword,
        role: "superuser",
        accessCode: code,
      });
      setDone(true);
    } catch (err) {
      setProblem({ field: "form", message: errorMessage(err, MESSAGES.signupFailed) });
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <Page title="Create your employer account" width="narrow">
        <SignupDone email={email} />
      </Page>
    );
  }

  /** The error under one field, announced, and tied to the field. */
  const errorFor = (field: FieldKey) =>
    problem?.field === field ? (
      <Notice tone="error" id={`${errorId}-${field}`}>
        {problem.message}
      </Notice>
    ) : null;
  const describedBy = (field: FieldKey) => (problem?.field === field ? `${errorId}-${field}` : undefined);

  return (
    <Page
      title="Create your employer account"
      width="narrow"
      intro={<p>Your account is checked by the CallProof team before you can log in. All fields are required.</p>}
    >
      <form className="card form" onSubmit={submit} noValidate>
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
          label="Company name"
          name="companyName"
          autoComplete="organization"
          required
          value={companyName}
          onChange={(e) => setCompanyName(e.target.value)}
          describedBy={describedBy("companyName")}
        />
        {errorFor("companyName")}
        <TextField
          label="Website"
          name="website"
          inputMode="url"
          autoComplete="url"
          placeholder="https://www.example.com"
          required
          value={website}
          onChange={(e) => setWebsite(e.target.value)}
          describedBy={describedBy("website")}
        />
        {errorFor("website")}
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          hint="The address your invitation was sent to; it cannot be changed."
          readOnly
          aria-readonly="true"
          value={email}
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
