import { send } from "./api";
import { useApi } from "./use-api";

const fetchPublicConfig = (signal: AbortSignal) => send("getPublicConfig", { signal });

export type PublicConfig = Awaited<ReturnType<typeof fetchPublicConfig>>;

/** The product's public settings (the support address); undefined while loading, null if they could not be read. */
export function usePublicConfig(): PublicConfig | null | undefined {
  const { data, error } = useApi(fetchPublicConfig, [], { what: "public configuration" });
  if (error) return null;
  if (data === undefined) return undefined;
  return typeof data?.supportEmail === "string" && data.supportEmail ? data : null;
}
