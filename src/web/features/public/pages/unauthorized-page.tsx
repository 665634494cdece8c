import { paths } from "@shared/paths";
import { Page } from "@web/components/ui/page";
import { useAuth } from "@web/lib/auth";
import { Link } from "react-router";

/** Where the route guards send users without the right role. */
export function UnauthorizedPage() {
  const { role } = useAuth();
  return (
    <Page title="No access to that page" documentTitle="Unauthorized" width="narrow">
      <div className="card">
        <p>
          {role
            ? "Your account does not have access to the page you asked for. If you think it should, ask your employer or the CallProof team."
            : "That page is only for signed-in users with the right kind of account. Log in to continue."}
        </p>
        <div className="actions">
          <Link className="button button--primary" to={paths.home}>
            Go to the home page
          </Link>
          {!role && (
            <Link className="button button--secondary" to={paths.login}>
              Go to Log In
            </Link>
          )}
        </div>
      </div>
    </Page>
  );
}
