import type { AccountAnswer, PasskeyAnswer } from "@shared/account";
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from "@simplewebauthn/browser";
import { api, errorMessage } from "@web/lib/api";
import { useCallback, useEffect, useState } from "react";

/** The account page's calls. */
export const accountApi = {
  get: () => api.get<AccountAnswer>("/api/account"),
  changePassword: (currentPassword: string, newPassword: string) =>
    api.post<{ message: string }>("/api/account/change-password", { currentPassword, newPassword }),
  revokeOtherSessions: () => api.post<{ count: number }>("/api/account/sessions/revoke-others"),
  passkeyOptions: () => api.post<PublicKeyCredentialCreationOptionsJSON>("/api/account/passkeys/options"),
  addPasskey: (response: RegistrationResponseJSON) => api.post<PasskeyAnswer>("/api/account/passkeys", { response }),
  renamePasskey: (id: number, name: string) => api.patch<{ message: string }>(`/api/account/passkeys/${id}`, { name }),
  removePasskey: (id: number) => api.delete<{ message: string }>(`/api/account/passkeys/${id}`),
};

export type AccountState =
  | { status: "loading" }
  | { status: "failed"; failure: string | null }
  | { status: "ready"; account: AccountAnswer };

/** The account, loaded once and reloaded after each change made on the page. */
export function useAccount() {
  const [state, setState] = useState<AccountState>({ status: "loading" });

  const reload = useCallback(async () => {
    try {
      setState({ status: "ready", account: await accountApi.get() });
    } catch (error) {
      console.error("Could not load the account", error);
      setState((previous) =>
        previous.status === "ready" ? previous : { status: "failed", failure: errorMessage(error, "") || null },
      );
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { state, reload };
}
