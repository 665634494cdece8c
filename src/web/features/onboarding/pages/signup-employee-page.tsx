import { paths } from "@shared/paths";
import { Page } from "@web/components/ui/page";
import { Link, useNavigate } from "react-router";
import { onboardingApi } from "../api";
import { AccessCodeForm } from "../components/access-code-form";
import type { EmployeeSignupState } from "../signup-state";
import "../onboarding.css";

/** Step 1 of employee sign-up: the access code from the employer. */
export function SignupEmployeePage() {
  const navigate = useNavigate();

  async function validate(code: string) {
    const { companyDomain, website } = await onboardingApi.validateEmployeeCode(code);
    const state: EmployeeSignupState = { code, companyDomain, website };
    navigate(paths.employeeCreateAccount, { state });
  }

  return (
    <Page
      title="Employee sign-up"
      width="narrow"
      intro={<p>Enter the access code your employer's CallProof admin gave you.</p>}
    >
      <AccessCodeForm
        label="Access code"
        hint="Ask your employer's CallProof admin if you do not have one."
        validate={validate}
      />
      <p className="form__after">
        Setting up CallProof for your organisation? <Link to={paths.employerAccessCode}>Create an admin account</Link>
      </p>
    </Page>
  );
}
