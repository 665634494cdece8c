import { send } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The sites feature's calls: the organisation's sites, adding one, checking its proof, removing it. */
export const sitesApi = {
  sites: (signal?: AbortSignal) => send("listSites", { signal }),
  add: (host: string) => send("addSite", { body: { host } }),
  check: (host: string) => send("checkSite", { body: { host } }),
  remove: (host: string) => send("removeSite", { params: { path: { host } } }),
};

export type SiteRecord = NonNullable<Awaited<ReturnType<typeof sitesApi.sites>>>[number];

/** The organisation's sites, loaded once and reloaded after each change. */
export function useSites() {
  return useApi(sitesApi.sites, [], { what: "sites" });
}
