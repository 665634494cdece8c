import { call, client } from "@web/lib/api";
import { useApi } from "@web/lib/use-api";

/** The sites feature's calls: the organisation's sites, adding one, checking its proof, removing it. */
export const sitesApi = {
  sites: (signal?: AbortSignal) => call(client.GET("/api/employer/sites", { signal })),
  add: (host: string) => call(client.POST("/api/employer/sites", { body: { host } })),
  check: (host: string) => call(client.POST("/api/employer/sites/check", { body: { host } })),
  remove: (host: string) => call(client.DELETE("/api/employer/sites/{host}", { params: { path: { host } } })),
};

export type SiteRecord = NonNullable<Awaited<ReturnType<typeof sitesApi.sites>>>[number];

/** The organisation's sites, loaded once and reloaded after each change. */
export function useSites() {
  return useApi(sitesApi.sites, [], { what: "sites" });
}
