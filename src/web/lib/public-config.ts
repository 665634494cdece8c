import type { publicConfigAnswer } from "@shared/auth";
import { useEffect, useState } from "react";
import type { z } from "zod";
import { api } from "./api";

export type PublicConfig = z.infer<typeof publicConfigAnswer>;

const fetchPublicConfig = () => api.get<PublicConfig>("/api/public-config");

/** The product's public settings (the support address); undefined while loading, null if they could not be read. */
export function usePublicConfig(): PublicConfig | null | undefined {
  const [config, setConfig] = useState<PublicConfig | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    fetchPublicConfig().then(
      (answer) => {
        if (live) setConfig(typeof answer?.supportEmail === "string" && answer.supportEmail ? answer : null);
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
