import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Document, Spectral } from "@stoplight/spectral-core";
import * as Parsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import { buildTestApp, type TestApp } from "@test/helpers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The served /api/openapi.json through the two linters integrators run on it: Redocly's `recommended`
 * rules (what `npx @redocly/cli lint` applies without a configuration) and Spectral's `spectral:oas`.
 * No error, and no warning but the ones kept here with their reason: a new one fails this test.
 */
const KEPT_WARNINGS: Array<{ linter: "redocly" | "spectral"; rule: string; at: string; why: string }> = [
  {
    linter: "redocly",
    rule: "info-license",
    at: "#/info",
    why: "the product is private and states no licence; the document does not invent one",
  },
  {
    linter: "redocly",
    rule: "operation-2xx-response",
    at: "GET /api/auth/sso/start",
    why: "by contract it answers a redirect (302 to the identity provider), never a 2xx",
  },
  {
    linter: "redocly",
    rule: "operation-2xx-response",
    at: "GET /api/auth/sso/callback",
    why: "by contract every outcome is a redirect (302 to the role's page or to /login?sso=failed)",
  },
  {
    linter: "redocly",
    rule: "operation-4xx-response",
    at: "GET /api/public-config",
    why: "it takes no input, no credentials and has no limit: no 4xx can occur (503 only)",
  },
];

let t: TestApp;
let source: string;
beforeAll(async () => {
  // A deployment's own https URL: the document's `servers` is PUBLIC_URL (localhost would be flagged).
  t = await buildTestApp({ env: { PUBLIC_URL: "https://callproof.test" } });
  const served = await t.app.inject({ method: "GET", url: "/api/openapi.json" });
  expect(served.statusCode).toBe(200);
  source = JSON.stringify(served.json(), null, 2);
});
afterAll(async () => {
  await t?.close();
});

/** A problem's place as "GET /api/path" for an operation's, else its JSON pointer. */
function place(pointer: string): string {
  const match = /^#\/paths\/([^/]+)\/(get|put|post|patch|delete)(\/|$)/.exec(pointer);
  if (!match?.[1] || !match[2]) return pointer;
  return `${match[2].toUpperCase()} ${decodeURIComponent(match[1]).replaceAll("~1", "/").replaceAll("~0", "~")}`;
}

const kept = (linter: string) =>
  KEPT_WARNINGS.filter((w) => w.linter === linter)
    .map((w) => `${w.rule} at ${w.at}`)
    .sort();

// The document is the same on every engine: linted once.
describe.skipIf(process.env.TEST_DB === "postgres")(
  "the served OpenAPI document and the linters integrators run",
  () => {
    it("passes Redocly's recommended rules: no error, no warning but the kept ones", async () => {
      const config = await createConfig({ extends: ["recommended"] });
      const problems = await lintFromString({ source, absoluteRef: "openapi.json", config });
      const found = (severity: string) =>
        problems
          .filter((p) => p.severity === severity)
          .map((p) => `${p.ruleId} at ${place(p.location[0]?.pointer ?? "")}: ${p.message}`);
      expect(found("error")).toEqual([]);
      expect(
        found("warn")
          .map((w) => w.replace(/: .*$/s, ""))
          .sort(),
      ).toEqual(kept("redocly"));
    });

    it("passes Spectral's spectral:oas: no error, no warning but the kept ones", async () => {
      const spectral = new Spectral();
      spectral.setRuleset({ extends: [oas] } as never);
      const results = await spectral.run(new Document(source, Parsers.Json, "openapi.json"));
      const found = (severity: number) =>
        results
          .filter((r) => r.severity === severity)
          .map(
            (r) =>
              `${r.code} at ${place(`#/${r.path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`)}: ${r.message}`,
          );
      // 0 error, 1 warning (2 information and 3 hint are not counted by the CLI's summary either)
      expect(found(0)).toEqual([]);
      expect(
        found(1)
          .map((w) => w.replace(/: .*$/s, ""))
          .sort(),
      ).toEqual(kept("spectral"));
    });
  },
);
