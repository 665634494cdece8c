import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient as generateSdk } from "@hey-api/openapi-ts";
import { createEmployee, createEmployer, TRUST_PROXY_ENV } from "@test/fixtures";
import { buildTestApp, signedIn, type TestApp } from "@test/helpers";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const clientSource = path.join(root, "test/v1-client/client.ts");
const sdkClientSource = path.join(root, "test/v1-client/hey-api-client.ts");

let t: TestApp;
let dir: string;
beforeEach(async () => {
  t = await buildTestApp({ env: TRUST_PROXY_ENV, listen: true });
  // Inside the project (.tmp/ is ignored), so that `openapi-fetch` resolves from its node_modules.
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  dir = mkdtempSync(path.join(root, ".tmp/typed-client-"));
});
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.close();
});

/** Type-checks files as a strict project would (the project's own compiler options). */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file ? path.basename(d.file.fileName) : ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}

describe("the served OpenAPI document and a typed client", () => {
  it("generates types with openapi-typescript with which openapi-fetch calls every /api/v1 operation", async () => {
    const served = await fetch(`${t.url}/api/openapi.json`);
    expect(served.status).toBe(200);
    const document = await served.json();
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    const v1 = Object.entries(document.paths as Record<string, Record<string, { security?: unknown[] }>>).filter(
      ([p]) => p.startsWith("/api/v1/"),
    );
    const operations = v1.flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
    expect(operations.sort()).toEqual([
      "DELETE /api/v1/customers/status-tokens",
      "GET /api/v1/activity",
      "GET /api/v1/audit",
      "GET /api/v1/codes/{id}",
      "GET /api/v1/codes/{id}/events",
      "GET /api/v1/customer-checks/{id}",
      "GET /api/v1/reports",
      "POST /api/v1/calls",
      "POST /api/v1/calls/{id}/customer-check",
      "POST /api/v1/calls/{id}/end",
      "POST /api/v1/codes",
      "POST /api/v1/customer-checks/{id}",
      "POST /api/v1/customers/call-status",
      "POST /api/v1/customers/erase",
      "POST /api/v1/customers/export",
      "POST /api/v1/customers/status-token",
    ]);
    for (const [, methods] of v1)
      for (const op of Object.values(methods)) expect(op.security).toEqual([{ apiKey: [] }]);
    // with examples of the bodies and answers
    expect(JSON.stringify(document.paths["/api/v1/codes"])).toContain("agent@bank.example");
    expect(JSON.stringify(document.paths["/api/v1/audit"])).toContain("code.verify");

    // The types, from the served document, into a temporary file beside a copy of the client.
    writeFileSync(path.join(dir, "schema.d.ts"), astToString(await openapiTS(document)));
    copyFileSync(clientSource, path.join(dir, "client.ts"));
    expect(typeErrors([path.join(dir, "client.ts")])).toEqual([]);

    // The types bind: a wrong path, a missing body field and a wrong query type do not compile.
    writeFileSync(
      path.join(dir, "wrong.ts"),
      `import createClient from "openapi-fetch";
import type { paths } from "./schema";
const client = createClient<paths>({ baseUrl: "" });
export const a = client.GET("/api/v1/nothing");
export const b = client.POST("/api/v1/codes", { body: { language: "en" } });
export const c = client.GET("/api/v1/audit", { params: { query: { limit: "many" } } });
`,
    );
    expect(typeErrors([path.join(dir, "wrong.ts")])).toHaveLength(3);

    // And the client works against this server.
    const employer = await createEmployer(t);
    const employee = await createEmployee(t, employer.org.id, employer.domain);
    const browser = await signedIn(t, employer.user);
    const key = (
      await browser.post("/api/employer/api-keys", {
        name: "typed client",
        scopes: ["codes:write", "codes:read", "reports:read", "audit:read", "activity:read"],
      })
    ).json().key;
    // (imported by its path: the project's own type-check does not see the client, whose ./schema exists only here)
    const client = (await import(/* @vite-ignore */ path.join(dir, "client.ts"))) as {
      callEveryOperation(baseUrl: string, key: string, employeeEmail: string): Promise<Record<string, unknown>>;
    };
    const calls = (await client.callEveryOperation(t.url, key, employee.email)) as {
      code: { words: string[] };
      [k: string]: unknown;
    };
    expect(calls.code).toMatchObject({ language: "en", employee: { email: employee.email } });
    expect(calls.code.words).toHaveLength(3);
    expect(calls.status).toBe("live");
    expect(calls.events).toContain("event: live");
    expect(calls.auditActions).toContain("api.issue-code");
    expect(calls.auditNext).toMatch(/^\d+$/);
    expect(calls.reports).toBe(0);
    expect(calls.days).toBe(30);
    expect(calls.refusal).toEqual({ status: 404, message: "No such code." });
  });

  // The generation is the same on every engine, and v1.test proves the calls on PostgreSQL: run once.
  it.skipIf(process.env.TEST_DB === "postgres")(
    "generates an SDK with @hey-api/openapi-ts whose functions call every /api/v1 operation, the event stream included",
    async () => {
      const document = await (await fetch(`${t.url}/api/openapi.json`)).json();
      // The event stream is declared as what it is: a client must not wait for a JSON body that never ends.
      const events = document.paths["/api/v1/codes/{id}/events"].get.responses["200"].content;
      expect(Object.keys(events)).toEqual(["text/event-stream"]);

      await generateSdk({
        input: document,
        output: { path: path.join(dir, "hey-api") },
        plugins: ["@hey-api/client-fetch", "@hey-api/sdk", "@hey-api/typescript"],
        logs: { level: "silent" },
      });
      copyFileSync(sdkClientSource, path.join(dir, "hey-api-client.ts"));
      expect(typeErrors([path.join(dir, "hey-api-client.ts")])).toEqual([]);

      const employer = await createEmployer(t);
      const employee = await createEmployee(t, employer.org.id, employer.domain);
      const browser = await signedIn(t, employer.user);
      const key = (
        await browser.post("/api/employer/api-keys", {
          name: "generated SDK",
          scopes: ["codes:write", "codes:read", "reports:read", "audit:read", "activity:read"],
        })
      ).json().key;
      const sdk = (await import(/* @vite-ignore */ path.join(dir, "hey-api-client.ts"))) as {
        callEveryOperation(baseUrl: string, key: string, employeeEmail: string): Promise<Record<string, unknown>>;
      };
      const calls = (await sdk.callEveryOperation(t.url, key, employee.email)) as {
        code: { words: string[]; employee: { email: string } };
        [k: string]: unknown;
      };
      expect(calls.code.employee.email).toBe(employee.email);
      expect(calls.code.words).toHaveLength(3);
      expect(calls.status).toBe("live");
      expect(calls.firstEvent).toMatchObject({ event: "live", data: { status: "live" } });
      expect(calls.auditActions).toContain("api.issue-code");
      expect(calls.reports).toBe(0);
      expect(calls.days).toBe(30);
      expect(calls.refusal).toEqual({ status: 404, message: "No such code." });
    },
  );
});
