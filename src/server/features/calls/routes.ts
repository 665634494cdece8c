import type { App } from "@server/types";

/** The employee's calls (/api/calls…) and the dialler's (/api/v1/calls…, /api/v1/customer-checks…). */
export default async function callsRoutes(_app: App) {}
