import { MESSAGES } from "@shared/messages";
import { employerPasswordProblem, ONBOARDING_MESSAGES, websiteSchema } from "@shared/onboarding";
import { paths } from "@shared/paths";
import { TextField } from "@web/components/ui/text-field";
import { type FormEvent, useState } from "react";
import { Navigate, useLocation } from "react-router";
import { onboardingApi } from "../api";
import {
  passwordFieldProblem,
  SignupField,
  SignupFormFrame,
  type SignupProblem,
  useSignupForm,
} from "../components/signup-form";
import { readEmployerSignupState } from "../signup-state";
import "../onboarding.css";

/** This form's own fields; the passwords, terms and form error come with the sign-up form. */
type EmployerField = "fullName" | "companyName" | "website";

const PASSWORD_HINT =
  "At least 8 characters, with an uppercase letter and a special character such as ! or # (a space does not count).";

/** Employer account form; reachable only from a valid Admin access code (navigation state). */
export function SignupEmployerPage() {
  const location = useLocation();
  const signup = readEmployerSignupState(location.state);
  if (!signup) return <Navigate to={paths.employerAccessCode} replace />;
  return <EmployerForm code={signup.code} email={signup.email} />;
}

function EmployerForm({ code, email }: { code: string; email: string }) {
  const form = useSignupForm<EmployerField>();
  const [fullName, setFullName] = useState("");
  const [companyName, setCompanyName] = useState("");
  const [website, setWebsite] = useState("");

  /** The client checks: required fields, then the passwords (match, strength), the terms, then the website's form. */
  function check(): SignupProblem<EmployerField> | null {
    if (!fullName.trim()) return { field: "fullName", message: "Full name is required." };
    if (!companyName.trim()) return { field: "companyName", message: "Company name is required." };
    if (!website.trim()) return { field: "website", message: "Website is required." };
    const passwordProblem = passwordFieldProblem(employerPasswordProblem(form.password, form.confirmPassword));
    if (passwordProblem) return passwordProblem;
    if (!form.agreed) return { field: "terms", message: MESSAGES.mustAgreeToTerms };
    if (!websiteSchema.safeParse(website).success)
      return { field: "website", message: ONBOARDING_MESSAGES.invalidWebsite };
    return null;
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    return form.submit(event, check, async () => {
      await onboardingApi.registerEmployer({
        fullName: fullName.trim(),
        companyName: companyName.trim(),
        website: website.trim(),
        email,
        password: form.password,
        confirmPassword: form.confirmPassword,
        role: "superuser",
        accessCode: code,
      });
      return email;
    });
  }

  return (
    <SignupFormFrame
      title="Create your employer account"
      intro={<p>Your account is checked by the CallProof team before you can log in. All fields are required.</p>}
      passwordHint={PASSWORD_HINT}
      form={form}
      onSubmit={submit}
    >
      <SignupField
        form={form}
        label="Full name"
        name="fullName"
        autoComplete="name"
        required
        value={fullName}
        onChange={(e) => setFullName(e.target.value)}
      />
      <SignupField
        form={form}
        label="Company name"
        name="companyName"
        autoComplete="organization"
        required
        value={companyName}
        onChange={(e) => setCompanyName(e.target.value)}
      />
      <SignupField
        form={form}
        label="Website"
        name="website"
        inputMode="url"
        autoComplete="url"
        placeholder="https://www.example.com"
        required
        value={website}
        onChange={(e) => setWebsite(e.target.value)}
      />
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
    </SignupFormFrame>
  );
}
