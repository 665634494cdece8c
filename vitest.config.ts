import { defineConfig } from "vitest/config";
import { aliases } from "./aliases";

// The integration suite runs on the embedded database always, and once more on a
// PostgreSQL server when TEST_DATABASE_URL is set. Browser tests run once, on PGlite.
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

export default defineConfig({
  resolve: { alias: aliases },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    projects: [
      {
        extends: true as const,
        test: {
          name: "unit+integration (pglite)",
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
                include: ["src/server/**/*.test.ts"],
                env: { TEST_DB: "postgres" },
                globalSetup: ["test/global-setup.ts"],
              },
            },
          ]
        : []),
      {
        extends: true as const,
        test: {
          name: "browser",
          include: ["e2e/**/*.test.ts"],
          env: { TEST_DB: "pglite" },
          // The build first (once), then the files two at a time like the other projects.
          globalSetup: ["test/build-once.ts", "test/global-setup.ts"],
          testTimeout: 90_000,
        },
      },
    ],
  },
});
