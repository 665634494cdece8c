import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { aliases } from "./aliases.ts";
import Sequencer from "./test/sequencer.ts";

// The integration suite runs on the embedded database always, and once more on a
// PostgreSQL server when TEST_DATABASE_URL is set. Browser tests run once, on PGlite.
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
// With TEST_POOLER_URL (a PgBouncer in transaction mode in front of that server, as .ci/run starts it),
// the PostgreSQL suite runs once more with the app's pool through it (94 s of a 2-core machine's time).
const throughPooler = onPostgres && Boolean(process.env.TEST_POOLER_URL);

/** The server's test files, relative to the project's root. */
function serverTestFiles(dir = "src/server"): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return serverTestFiles(file);
    return entry.name.endsWith(".test.ts") ? [file] : [];
  });
}

/**
 * Server test files that run the same on every engine, so once (on PGlite): a test reaches a database only
 * through test/ (buildTestApp, freshDatabase, the unmigrated database, throwawayPostgres) or by reading
 * TEST_DB / TEST_DATABASE_URL itself, and these do neither (the configuration's parsing, the word lists,
 * the outbound policy, static files, the background runner, crypto and address arithmetic). Found by
 * reading the files, so a new file that opens a database runs on PostgreSQL and through the pooler by itself.
 */
const ENGINE_INDEPENDENT = serverTestFiles().filter(
  (file) => !/from "@test\/|TEST_DB|TEST_DATABASE_URL/.test(readFileSync(file, "utf8")),
);

/**
 * Files the pooler project leaves out: they reach nothing a transaction-mode pooler treats differently from
 * the direct connection they already ran on in "integration (postgres)". What it does treat differently,
 * and so what stays: the statements `db.prepared` and `db.run` send unnamed or as functions (codes'
 * generation, look-up and status; API keys), NOTIFY sent through it to a LISTEN on the direct connection
 * (webhooks' wake-up, codes' live status), transaction-scoped locks and settings (the audit chain and feed,
 * reports), the direct URL (migrations, LISTEN), outages, and two processes on one database. Every file
 * listed runs only one-statement reads and writes and plain transactions, which a pooler passes through
 * as they are, or never goes through it at all:
 */
const SAME_THROUGH_POOLER = [
  // floods of anonymous requests and hostile text: the same limit and refusal statements the files kept run
  "src/server/plugins/hostile-input.test.ts",
  "src/server/plugins/anonymous-routes.test.ts",
  "src/server/features/auth/anonymous-floods.test.ts",
  "src/server/features/codes/refused-lookups.test.ts",
  // the OpenAPI document and its generated clients; the identity providers' protocols (SSO, SCIM conformance)
  "src/server/plugins/openapi-*.test.ts",
  "src/server/features/v1/typed-client.test.ts",
  "src/server/features/sso/sso.test.ts",
  "src/server/features/scim/conformance.test.ts",
  // accounts, sign-in, sessions, passkeys, onboarding and the employer's and admin's pages: plain reads,
  // writes and transactions (kept files sign in through the pooler too: alerts, calls, lifecycle,
  // data-protection, audit-chain and organisation-status through both steps; the rest start their sessions
  // directly, test/helpers.ts signedIn)
  "src/server/features/account/*.test.ts",
  "src/server/features/auth/auth.test.ts",
  "src/server/features/auth/brute-force.test.ts",
  "src/server/features/auth/resend-verification.test.ts",
  "src/server/features/onboarding/*.test.ts",
  "src/server/features/employer/employer.test.ts",
  "src/server/features/admin/admin.test.ts",
  // the homes' rules below HTTP (test/deps.ts): one-statement reads and writes
  "src/server/features/users/users.test.ts",
  "src/server/features/organisations/organisations.test.ts",
  // the audit log's reads (its chain and feed, which take transaction locks, stay: audit-chain, feed-cursor)
  "src/server/features/audit/audit.test.ts",
  "src/server/features/audit/audit-scale.test.ts",
  // HTTP-layer rules: cookies, the signed-in hint, paths, the request log
  "src/server/plugins/https-cookies.test.ts",
  "src/server/plugins/signed-in-hint.test.ts",
  "src/server/plugins/encoded-paths.test.ts",
  "src/server/request-log.test.ts",
  // the catalogue against schema.ts, and migrations applied on a connection to the server itself (never pooled)
  "src/server/db/migrations.test.ts",
  "src/server/features/*/migration.test.ts",
  // the server through its Unix socket, never through the pooler
  "src/server/db/unix-socket.test.ts",
  // PGlite's own (they skip themselves elsewhere)
  "src/server/db/embedded.test.ts",
  "src/server/db/pglite-thread.test.ts",
];

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
    // The short files that run long start first in their project (test/sequencer.ts).
    sequence: { sequencer: Sequencer },
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
                exclude: [...configDefaults.exclude, ...ENGINE_INDEPENDENT],
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
                exclude: [...configDefaults.exclude, ...ENGINE_INDEPENDENT, ...SAME_THROUGH_POOLER],
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
