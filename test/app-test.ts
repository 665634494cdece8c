/**
 * Vitest fixtures (`test.extend`) for the server's tests, instead of each file's preamble of
 * `let t; beforeEach(buildTestApp); afterEach(close)`: a test names what it needs and gets it fresh,
 * closed after it.
 *
 * - `t`: the whole app on a fresh database (buildTestApp) with `appEnv` as its environment;
 * - `receiver`: a webhook receiver on loopback (test/webhook-receiver.ts);
 * - `deps`: the services' dependencies without Fastify (test/deps.ts), for rules that need no server.
 *
 * A file or a `describe` sets the app's environment with `test.override("appEnv", {...})`.
 *
 *     import { test } from "@test/app-test";
 *     test.override("appEnv", { OUTBOUND_ALLOWED_HOSTS: "loopback" });
 *     test("delivers", async ({ t, receiver }) => { … });
 */
import { test as base, beforeAll } from "vitest";
import { testDeps } from "./deps";
import { buildTestApp } from "./helpers";
import { Receiver } from "./webhook-receiver";

/**
 * A test's fixtures count against its own time limit, not a hook's: the worker's first database (PGlite from
 * the seed) and first app are made here instead, in a hook of the first file that imports this module (once
 * per worker: the server's files share their worker's modules), and what they leave is reused by the tests.
 */
beforeAll(async () => {
  const first = await buildTestApp();
  await first.close();
});

type Cleanup = { onCleanup(cleanup: () => unknown): void };

/** A webhook receiver on loopback, stopped after the test. */
// biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
async function receiverFixture({}, { onCleanup }: Cleanup) {
  const receiver = await new Receiver().start();
  onCleanup(() => receiver.stop());
  return receiver;
}

/** The services' dependencies on a fresh database, closed after the test. */
// biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
async function depsFixture({}, { onCleanup }: Cleanup) {
  const deps = await testDeps();
  onCleanup(() => deps.close());
  return deps;
}

export const test = base
  .extend("appEnv", {} as Record<string, string>)
  .extend("receiver", receiverFixture)
  .extend("t", async ({ appEnv }, { onCleanup }) => {
    const t = await buildTestApp({ env: appEnv });
    onCleanup(() => t.close());
    return t;
  })
  .extend("deps", depsFixture);

export const it = test;
export { describe, expect } from "vitest";
