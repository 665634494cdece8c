import { send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The activity feature's call: the organisation's last 30 days. */
export const activityApi = {
  activity: (signal?: AbortSignal) => send("getActivity", { signal }),
};

/** The organisation's activity over 30 days; read again when `refreshKey` changes. */
export function useActivity(refreshKey: number) {
  return useApi(activityApi.activity, [refreshKey], { what: "activity" });
}
