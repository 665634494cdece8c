import { paths } from "@shared/paths";
import { Page } from "@web/components/ui/page";
import { Link, useNavigate, useSearchParams } from "react-router";
import { onboardingApi } from "../api";
import { AccessCodeForm } from "../components/access-code-form";
import type { EmployerSignupState } from "../signup-state";
import "../onboarding.css";

/** Step 1 of employer sign-up: the Admin access code from the invitation (prefilled from ?code=). */
export function EmployerAccessCodePage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();

  async function validate(code: string) {
    const { email } = await onboardingApi.validateEmployerCode(code);
    const state: EmployerSignupState = { code, email };
    navigate(paths.signupEmployer, { state });
  }

  return (
    <Page
      title="Create an admin account"
      width="narrow"
      intro={
        <p>
          CallProof is invite-only. Enter the access code from your invitation email to create your organisation's admin
          account.
        </p>
      }
    >
      <AccessCodeForm
        label="Access code"
        hint="It is in the invitation email from the CallProof team."
        initialCode={params.get("code") ?? ""}
        validate={validate}
      />
      <p className="form__after">
        No invitation? <Link to={paths.contact}>Contact us</Link> to ask for one.
      </p>
    </Page>
  );
}
