import { MESSAGES } from "@shared/messages";
import { employeePasswordProblem } from "@shared/onboarding";
import { paths } from "@shared/paths";
import { emailSchema } from "@shared/validation";
import { TextField } from "@web/components/ui/text-field";
import { type FormEvent, useId, useState } from "react";
import { Navigate, useLocation } from "react-router";
import { onboardingApi } from "../api";
import {
  passwordFieldProblem,
  SignupField,
  SignupFormFrame,
  type SignupProblem,
  useSignupForm,
} from "../components/signup-form";
import { type EmployeeSignupState, readEmployeeSignupState } from "../signup-state";
import "../onboarding.css";

/** This form's own fields; the passwords, terms and form error come with the sign-up form. */
type EmployeeField = "email" | "fullName";

const PASSWORD_HINT =
  "At least 8 characters, with a capital letter and a special character such as ! or # (a space does not count).";

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
  const suffixId = useId();
  const form = useSignupForm<EmployeeField>();
  const { errorId, errorFor, describedBy } = form;
  const [localPart, setLocalPart] = useState("");
  const [fullName, setFullName] = useState("");

  /** The client checks: the e-mail, the name, then the passwords (strength, match), then the terms. */
  function check(): SignupProblem<EmployeeField> | { email: string } {
    const local = localPartOf(localPart, companyDomain);
    if (local === null) return { field: "email", message: `Your email address must end in @${companyDomain}.` };
    if (!local) return { field: "email", message: "Email is required." };
    const email = emailSchema.safeParse(`${local}@${companyDomain}`);
    if (!email.success) return { field: "email", message: "Enter a valid email address." };
    if (!fullName.trim()) return { field: "fullName", message: "Full name is required." };
    const passwordProblem = passwordFieldProblem(employeePasswordProblem(form.password, form.confirmPassword));
    if (passwordProblem) return passwordProblem;
    if (!form.agreed) return { field: "terms", message: MESSAGES.mustAgreeToTerms };
    return { email: email.data };
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    return form.submit(event, check, async ({ email }) => {
      await onboardingApi.registerEmployee({
        email,
        password: form.password,
        fullName: fullName.trim(),
        accessCode: code,
        website,
      });
      return email;
    });
  }

  return (
    <SignupFormFrame
      title="Create your employee account"
      intro={<p>Your account joins your employer's CallProof organisation. All fields are required.</p>}
      passwordHint={PASSWORD_HINT}
      form={form}
      onSubmit={submit}
    >
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
            aria-invalid={form.problem?.field === "email" || undefined}
            aria-describedby={[suffixId, `${errorId}-email-hint`, describedBy("email")].filter(Boolean).join(" ")}
          />
          <span id={suffixId} className="email-split__domain">
            @{companyDomain}
          </span>
        </div>
      </div>
      {errorFor("email")}
      <SignupField
        form={form}
        label="Full name"
        name="fullName"
        autoComplete="name"
        required
        value={fullName}
        onChange={(e) => setFullName(e.target.value)}
      />
      <TextField
        label="Website"
        name="website"
        hint="Your employer's website, set by your employer."
        readOnly
        aria-readonly="true"
        value={website}
        className="field--locked"
      />
    </SignupFormFrame>
  );
}
