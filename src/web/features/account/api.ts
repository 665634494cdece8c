import type { AccountAnswer } from "@shared/account";
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from "@simplewebauthn/browser";
import { apiHref, call, client, errorMessage } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The account page's calls. */
export const accountApi = {
  get: (signal?: AbortSignal) => call(client.GET("/api/account", { signal })),
  changePassword: (currentPassword: string, newPassword: string) =>
    call(client.POST("/api/account/change-password", { body: { currentPassword, newPassword } })),
  revokeOtherSessions: () => call(client.POST("/api/account/sessions/revoke-others")),
  /**
   * The options are @simplewebauthn/server's, passed through: the server's schema checks only their
   * challenge, so their full type is that library's (the one cast of an answer here).
   */
  passkeyOptions: async () =>
    (await call(client.POST("/api/account/passkeys/options"))) as unknown as PublicKeyCredentialCreationOptionsJSON,
  addPasskey: (response: RegistrationResponseJSON) =>
    call(
      client.POST("/api/account/passkeys", {
        body: { response: { ...response, clientExtensionResults: { ...response.clientExtensionResults } } },
      }),
    ),
  renamePasskey: (id: number, name: string) =>
    call(client.PATCH("/api/account/passkeys/{id}", { params: { path: { id } }, body: { name } })),
  removePasskey: (id: number) => call(client.DELETE("/api/account/passkeys/{id}", { params: { path: { id } } })),
  /** the download of everything the account holds (JSON) */
  exportHref: () => apiHref("/api/account/export"),
};

export type AccountState =
  | { status: "loading" }
  | { status: "failed"; failure: string | null }
  | { status: "ready"; account: AccountAnswer };

/** The account, loaded once and reloaded after each change made on the page (kept when a reload fails). */
export function useAccount() {
  const { data, error, reload } = useApi(accountApi.get, [], { what: "account" });
  const state: AccountState = data
    ? { status: "ready", account: data }
    : error
      ? { status: "failed", failure: errorMessage(error, "") || null }
      : { status: "loading" };
  return { state, reload };
}
