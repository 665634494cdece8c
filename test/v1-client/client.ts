/**
 * An integration's client of /api/v1, as docs/integration.md shows it: openapi-fetch typed by the types
 * openapi-typescript generates from the served /api/openapi.json. `./schema` is that generated file:
 * src/server/features/v1/typed-client.test.ts writes it next to a copy of this file and type-checks both
 * (strict, noUncheckedIndexedAccess), then runs this file against the server. Every /api/v1 operation is
 * called here, so the document cannot drift from the server without this failing.
 */
import createClient from "openapi-fetch";
import type { paths } from "./schema";

export type V1Calls = {
  code: { id: number; words: string[]; expiresAt: string; language: string; employee: { email: string } };
  status: string;
  events: string;
  auditActions: string[];
  auditNext: string;
  reports: number;
  days: number;
  refusal: { status: number; message: string };
};

export async function callEveryOperation(baseUrl: string, key: string, employeeEmail: string): Promise<V1Calls> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

  const issued = await client.POST("/api/v1/codes", { body: { employeeEmail, language: "en" } });
  if (!issued.data) throw new Error(`POST /api/v1/codes: ${issued.response.status} ${issued.error?.message}`);
  const code = issued.data;
  const id = String(code.id);

  const status = await client.GET("/api/v1/codes/{id}", { params: { path: { id } } });
  if (!status.data) throw new Error(`GET /api/v1/codes/{id}: ${status.error?.message}`);

  // The live status stream: read until its first event, as an agent desktop would before showing the code.
  const events = await client.GET("/api/v1/codes/{id}/events", { params: { path: { id } }, parseAs: "stream" });
  if (!events.data) throw new Error(`GET /api/v1/codes/{id}/events: ${events.response.status}`);
  const reader = events.data.pipeThrough(new TextDecoderStream()).getReader();
  let firstEvent = "";
  while (!firstEvent.includes("\ndata: ")) {
    const { value, done } = await reader.read();
    if (done) break;
    firstEvent += value;
  }
  await reader.cancel();

  const audit = await client.GET("/api/v1/audit", { params: { query: { limit: 1000 } } });
  if (!audit.data) throw new Error(`GET /api/v1/audit: ${audit.error?.message}`);
  const more = await client.GET("/api/v1/audit", { params: { query: { after: audit.data.next, limit: 10 } } });
  if (!more.data) throw new Error(`GET /api/v1/audit (next): ${more.error?.message}`);

  const reports = await client.GET("/api/v1/reports", { params: { query: {} } });
  if (!reports.data) throw new Error(`GET /api/v1/reports: ${reports.error?.message}`);

  const activity = await client.GET("/api/v1/activity");
  if (!activity.data) throw new Error(`GET /api/v1/activity: ${activity.error?.message}`);

  // An error answer is typed too: `{message, code}`.
  const unknown = await client.GET("/api/v1/codes/{id}", { params: { path: { id: "2147483647" } } });

  return {
    code: { ...code, employee: { email: code.employee.email } },
    status: status.data.status,
    events: firstEvent,
    auditActions: audit.data.items.map((e) => e.action),
    auditNext: more.data.next,
    reports: reports.data.items.length,
    days: activity.data.length,
    refusal: { status: unknown.response.status, message: unknown.error?.message ?? "" },
  };
}
