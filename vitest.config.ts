import { defineConfig } from "vitest/config";
import { aliases } from "./aliases.ts";

// The integration suite runs on the embedded database always, and once more on a
// PostgreSQL server when TEST_DATABASE_URL is set. Browser tests run once, on PGlite.
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
// With TEST_POOLER_URL (a PgBouncer in transaction mode in front of that server, as .ci/run starts it),
// the PostgreSQL suite runs once more with the app's pool through it (94 s of a 2-core machine's time).
const throughPooler = onPostgres && Boolean(process.env.TEST_POOLER_URL);

// The server's test files share their workers' modules (isolate: false): each file builds its own app and
// database, no test mocks a module or changes the environment, and a fresh module graph per file cost
// most of the project's time (the PGlite project on a 2-core machine: 422 s isolated, 182 s shared, import
// 174 s → 16 s). The browser files too (each starts its own server and Chromium): 472 s → 391 s, import 87 s → 13 s.
const SHARED_MODULES = { isolate: false } as const;

export default defineConfig({
  resolve: { alias: aliases },
  test: {
    // The test identity provider (test/oidc-provider.ts) is oidc-provider's development setup on purpose
    // (in-memory store, its login page): its warnings saying so are not news in every run's output.
    onConsoleLog: (log) => !log.startsWith("oidc-provider WARNING: a quick start development-only"),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    projects: [
      {
        extends: true as const,
        test: {
          name: "unit+integration (pglite)",
          ...SHARED_MODULES,
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          env: { TEST_DB: "pglite" },
          globalSetup: ["test/global-setup.ts"],
        },
      },
      ...(onPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: "integration (postgres)",
                ...SHARED_MODULES,
                include: ["src/server/**/*.test.ts"],
                env: { TEST_DB: "postgres" },
                globalSetup: ["test/global-setup.ts"],
              },
            },
          ]
        : []),
      ...(throughPooler
        ? [
            {
              extends: true as const,
              test: {
                name: "integration (pgbouncer)",
                ...SHARED_MODULES,
                include: ["src/server/**/*.test.ts"],
                // Files that reach no statement a pooler treats differently from the direct connection they
                // already ran on: floods of anonymous requests and hostile text (the same limit and refusal
                // statements the other files run through the pooler), the identity provider's protocol, and
                // the OpenAPI document and its generated clients. 120 s of a 2-core machine's time.
                exclude: [
                  "src/server/plugins/hostile-input.test.ts",
                  "src/server/plugins/anonymous-routes.test.ts",
                  "src/server/plugins/openapi-*.test.ts",
                  "src/server/features/codes/refused-lookups.test.ts",
                  "src/server/features/sso/sso.test.ts",
                  "src/server/features/v1/typed-client.test.ts",
                  "src/server/features/scim/conformance.test.ts",
                ],
                env: { TEST_DB: "postgres", TEST_VIA_POOLER: "1" },
                globalSetup: ["test/global-setup.ts"],
              },
            },
          ]
        : []),
      {
        extends: true as const,
        test: {
          name: "browser",
          ...SHARED_MODULES,
          include: ["e2e/**/*.test.ts"],
          env: { TEST_DB: "pglite" },
          // The build first (once), then the files two at a time like the other projects.
          globalSetup: ["test/build-once.ts", "test/global-setup.ts"],
          testTimeout: 90_000,
          // expect.poll waits for the page to reach a state: as long as any Playwright wait here (openPage's
          // 10 s), not vitest's default 1 s, which a loaded 2-core machine overran (e2e/sites.test.ts saw an
          // empty Sites list 1 s after sign-in, in a full run).
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
