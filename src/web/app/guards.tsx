import type { Role } from "@shared/constants";
import { paths } from "@shared/paths";
import { SHELL_TEXT } from "@shared/shell-texts";
import type { ReactNode } from "react";
import { Navigate } from "react-router";
import { Page } from "../components/ui/page";
import { useAuth } from "../lib/auth";

const ANY_ROLE: readonly Role[] = ["admin", "superuser", "client"];

function CheckingAccess() {
  return (
    <p className="page-status" role="status">
      {SHELL_TEXT.checkingAccess}
    </p>
  );
}

type GuardProps = {
  /** roles that may see the page */
  allow?: readonly Role[];
  /** where everyone else goes, once the role is known */
  otherwise: string;
  children: ReactNode;
};

/**
 * Shows the page only to the allowed roles; waits for the role to be known before deciding.
 * This decides what is shown; the server enforces the same rules on every call.
 */
export function RequireRole({ allow = ANY_ROLE, otherwise, children }: GuardProps) {
  const { role, loading, signedOut } = useAuth();
  if (loading) return <CheckingAccess />;
  // Signing out from a guarded page lands on the home page, whichever render sees the role clear first.
  if (!role && signedOut) return <Navigate to={paths.home} replace />;
  if (!role || !allow.includes(role)) return <Navigate to={otherwise} replace />;
  return children;
}

/** Shows the page to anyone signed in; visitors see the not-authorized text in its place (no redirect). */
export function SignedInOnly({ children }: { children: ReactNode }) {
  const { role, loading } = useAuth();
  if (loading) return <CheckingAccess />;
  if (!role) {
    return (
      <Page title="Not authorized" width="narrow">
        <p className="notice notice--error" role="alert">
          {SHELL_TEXT.notAuthorizedForPage}
        </p>
      </Page>
    );
  }
  return children;
}
