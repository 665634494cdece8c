import { api } from "@web/lib/api";
import { useEffect, useState } from "react";

export type PublicConfig = { supportEmail: string };

export const publicApi = {
  config: () => api.get<PublicConfig>("/api/public-config"),
};

/** The product's public settings; undefined while loading, null if they could not be read. */
export function usePublicConfig(): PublicConfig | null | undefined {
  const [config, setConfig] = useState<PublicConfig | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    publicApi.config().then(
      (answer) => {
        if (live) setConfig(answer && typeof answer.supportEmail === "string" && answer.supportEmail ? answer : null);
      },
      (error) => {
        console.error("Could not load the public configuration", error);
        if (live) setConfig(null);
      },
    );
    return () => {
      live = false;
    };
  }, []);
  return config;
}
