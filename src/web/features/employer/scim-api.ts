import type { messageAnswer } from "@shared/answers";
import type { ScimStatus, scimTokenAnswer } from "@shared/scim";
import { api } from "@web/lib/api";
import type { z } from "zod";

/** The employer dashboard's SCIM calls: the base URL and token status, a new token (shown once), revoking it. */
export const scimApi = {
  status: () => api.get<ScimStatus>("/api/employer/scim"),
  createToken: () => api.post<z.infer<typeof scimTokenAnswer>>("/api/employer/scim-token"),
  revokeToken: () => api.delete<z.infer<typeof messageAnswer>>("/api/employer/scim-token"),
};
