import type { AlertSettingsBody } from "@shared/alerts";
import { send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The alerts feature's calls: the settings with the recent alerts, and saving the settings. */
export const alertsApi = {
  alerts: (signal?: AbortSignal) => send("getAlerts", { signal }),
  save: (settings: AlertSettingsBody) => send("updateAlerts", { body: settings }),
};

/** The alert settings and recent alerts; read again when `refreshKey` changes. */
export function useAlerts(refreshKey: number) {
  return useApi(alertsApi.alerts, [refreshKey], { what: "alerts" });
}
