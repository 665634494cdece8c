import type { App } from "@server/types";

/**
 * The customer's side: status tokens (/api/v1/customers/status-token(s), /api/v1/customers/call-status) and
 * the call-status component's routes (/api/call-status…).
 */
export default async function statusRoutes(_app: App) {}
