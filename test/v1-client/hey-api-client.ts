/**
 * The same integration with a second generator: the SDK `@hey-api/openapi-ts` (plugins
 * `@hey-api/client-fetch`, `@hey-api/sdk`) generates from the served /api/openapi.json, one function per
 * operation named after its `operationId`, and an event-stream function for the `text/event-stream` answer.
 * `./hey-api/` is that generated folder: src/server/features/v1/typed-client.test.ts writes it next to a
 * copy of this file, type-checks both (strict, noUncheckedIndexedAccess) and runs this file against the server.
 */
import { client } from "./hey-api/client.gen";
import {
  v1CreateCode,
  v1GetActivity,
  v1GetCode,
  v1ListAuditEvents,
  v1ListReports,
  v1StreamCodeEvents,
} from "./hey-api/sdk.gen";

export type V1Calls = {
  code: { id: number; words: string[]; language: string; employee: { email: string } };
  status: string;
  firstEvent: { event: string | undefined; data: unknown };
  auditActions: string[];
  reports: number;
  days: number;
  refusal: { status: number; message: string };
};

export async function callEveryOperation(baseUrl: string, key: string, employeeEmail: string): Promise<V1Calls> {
  // The document's security (bearer scheme `apiKey`) makes the SDK ask `auth` for the token.
  client.setConfig({ baseUrl, auth: () => key });

  const issued = await v1CreateCode({ body: { employeeEmail, language: "en" } });
  if (!issued.data) throw new Error(`v1CreateCode: ${issued.response?.status} ${issued.error?.message}`);
  const code = issued.data;
  const id = String(code.id);

  const status = await v1GetCode({ path: { id } });
  if (!status.data) throw new Error(`v1GetCode: ${status.error?.message}`);

  // The live status: the SDK's event-stream function, read until its first event, then closed.
  const controller = new AbortController();
  const events: Array<{ event: string | undefined; data: unknown }> = [];
  const { stream } = await v1StreamCodeEvents({
    path: { id },
    signal: controller.signal,
    sseMaxRetryAttempts: 1,
    onSseEvent: (event) => events.push({ event: event.event, data: event.data }),
  });
  // (the stream opens with `retry:` alone, an event without a name)
  const named = () => events.find((e) => e.event !== undefined);
  for await (const _data of stream) if (named()) break;
  controller.abort();
  const firstEvent = named();
  if (!firstEvent) throw new Error("v1StreamCodeEvents: no event");

  const audit = await v1ListAuditEvents({ query: { limit: 1000 } });
  if (!audit.data) throw new Error(`v1ListAuditEvents: ${audit.error?.message}`);

  const reports = await v1ListReports({ query: {} });
  if (!reports.data) throw new Error(`v1ListReports: ${reports.error?.message}`);

  const activity = await v1GetActivity();
  if (!activity.data) throw new Error(`v1GetActivity: ${activity.error?.message}`);

  // An error answer is typed too: `{message, code}`.
  const unknown = await v1GetCode({ path: { id: "2147483647" } });

  return {
    code: { id: code.id, words: code.words, language: code.language, employee: { email: code.employee.email } },
    status: status.data.status,
    firstEvent,
    auditActions: audit.data.items.map((e) => e.action),
    reports: reports.data.items.length,
    days: activity.data.length,
    refusal: { status: unknown.response?.status ?? 0, message: unknown.error?.message ?? "" },
  };
}
