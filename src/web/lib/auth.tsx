import { ROLES, type Role, SIGNED_IN_HINT, UI_TIMING } from "@shared/constants";
import { ERROR_CODES } from "@shared/error-codes";
import { paths } from "@shared/paths";
import { SHELL_TEXT } from "@shared/shell-texts";
import {
  createContext,
  Fragment,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { useLocation, useNavigate } from "react-router";

export type AuthContextValue = {
  role: Role | null;
  /** true until the first whoami call has answered */
  loading: boolean;
  isAdmin: boolean;
  isSuperuser: boolean;
  isClient: boolean;
  /** Asks the server who is signed in; a call already under way is reused, not repeated. */
  refresh(): Promise<Role | null>;
  /** Records the role the server just granted at sign-in (answers of older whoami calls are then ignored). */
  signedIn(role: Role): void;
  /** Ends the session and returns to the home page with a fresh app view. */
  signOut(): Promise<void>;
  signingOut: boolean;
  /** this view's session was ended by Sign Out: guarded pages send the visitor home, not to /login */
  signedOut: boolean;
};

const AuthContext = createContext<AuthContextValue | null>(null);

function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Whether the server's signed-in hint cookie is there: without it there is no session to ask about. */
function mayBeSignedIn(): boolean {
  return document.cookie.split(";").some((part) => part.trim().startsWith(`${SIGNED_IN_HINT}=`));
}

/**
 * The API client loads with the first call: a signed-out visitor's public pages make none, so their
 * first load leaves it out (it would put the home page over its budget).
 */
const apiClient = () => import("./api");

async function whoami(): Promise<Role | null> {
  // A signed-out visitor's pages do not ask (whoami would answer 401, an error in the console).
  if (!mayBeSignedIn()) return null;
  const { ApiError, send } = await apiClient();
  try {
    const answer = await send("whoami", { headers: { "Cache-Control": "no-cache" } });
    return isRole(answer?.role) ? answer.role : null;
  } catch (error) {
    // 401 just means signed out; anything else is logged, never shown.
    if (!(error instanceof ApiError && error.code === ERROR_CODES.notSignedIn)) console.error("whoami failed", error);
    return null;
  }
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Who is signed in, for the whole app. Must sit inside the router (sign-out navigates). */
export function AuthProvider({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const [role, setRole] = useState<Role | null>(null);
  const [signedOut, setSignedOut] = useState(false);
  const { pathname } = useLocation();
  // Once home after a sign-out, guarded pages go back to sending visitors to /login.
  useEffect(() => {
    if (signedOut && pathname === paths.home) setSignedOut(false);
  }, [signedOut, pathname]);
  const [loading, setLoading] = useState(true);
  const [signingOut, setSigningOut] = useState(false);
  /** Bumped on sign-out: remounts everything below, so no page keeps state from the old session. */
  const [generation, setGeneration] = useState(0);
  /** Bumped whenever the role is set by a sign-in or sign-out: older whoami answers are stale. */
  const version = useRef(0);
  const inflight = useRef<{ version: number; promise: Promise<Role | null> } | null>(null);

  const refresh = useCallback((): Promise<Role | null> => {
    const current = inflight.current;
    if (current && current.version === version.current) return current.promise;
    const startedAt = version.current;
    const promise = whoami().then((answer) => {
      if (inflight.current?.promise === promise) inflight.current = null;
      if (version.current === startedAt) {
        setRole(answer);
        setLoading(false);
      }
      return answer;
    });
    inflight.current = { version: startedAt, promise };
    return promise;
  }, []);

  const signedIn = useCallback((next: Role) => {
    version.current += 1;
    setRole(next);
    setSignedOut(false);
    setLoading(false);
  }, []);

  const signOut = useCallback(async () => {
    setSigningOut(true);
    let failed = false;
    try {
      const { send } = await apiClient();
      await send("logout");
      await wait(UI_TIMING.logoutRedirectMs);
    } catch (error) {
      failed = true;
      console.error(SHELL_TEXT.logoutFailed, error);
    }
    version.current += 1;
    setRole(null);
    setSignedOut(true);
    setLoading(failed);
    setSigningOut(false);
    setGeneration((g) => g + 1);
    navigate(paths.home);
    // After a failed logout the session may still be alive: ask the server.
    if (failed) void refresh();
  }, [navigate, refresh]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const value = useMemo<AuthContextValue>(
    () => ({
      role,
      loading,
      isAdmin: role === "admin",
      isSuperuser: role === "superuser",
      isClient: role === "client",
      refresh,
      signedIn,
      signOut,
      signingOut,
      signedOut,
    }),
    [role, loading, refresh, signedIn, signOut, signingOut, signedOut],
  );

  return (
    <AuthContext.Provider value={value}>
      <Fragment key={generation}>{children}</Fragment>
    </AuthContext.Provider>
  );
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuth must be used inside <AuthProvider>");
  return value;
}
