import type { AccountAnswer } from "@shared/account";
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from "@simplewebauthn/browser";
import { apiHref, errorMessage, send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The account page's calls. */
export const accountApi = {
  get: (signal?: AbortSignal) => send("getAccount", { signal }),
  changePassword: (currentPassword: string, newPassword: string) =>
    send("changePassword", { body: { currentPassword, newPassword } }),
  revokeOtherSessions: () => send("revokeOtherSessions"),
  /**
   * The options are @simplewebauthn/server's, passed through: the server's schema checks only their
   * challenge, so their full type is that library's (the one cast of an answer here).
   */
  passkeyOptions: async () =>
    (await send("passkeyRegistrationOptions")) as unknown as PublicKeyCredentialCreationOptionsJSON,
  addPasskey: (response: RegistrationResponseJSON) =>
    send("addPasskey", {
      body: { response: { ...response, clientExtensionResults: { ...response.clientExtensionResults } } },
    }),
  renamePasskey: (id: number, name: string) => send("renamePasskey", { params: { path: { id } }, body: { name } }),
  removePasskey: (id: number) => send("removePasskey", { params: { path: { id } } }),
  /** the download of everything the account holds (JSON) */
  exportHref: () => apiHref("exportAccount"),
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
