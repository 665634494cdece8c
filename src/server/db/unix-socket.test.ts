import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "@server/config";
import { openDatabase } from "@server/db/client";
import type { CodeStatus } from "@shared/codes";
import { openEventStream } from "@test/event-stream";
import { generate, signedInEmployee, verify } from "@test/fixtures";
import { buildTestApp, throwawayPostgres } from "@test/helpers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";

/**
 * PostgreSQL on the same machine, reached through its Unix socket (docs/operations.md: over loopback TCP a
 * successful look-up cost about 13 % more CPU, bench/README.md). Runs where the suite's server is this
 * machine's and Debian's socket directory holds its socket.
 */
const base = process.env.TEST_DB === "postgres" ? process.env.TEST_DATABASE_URL : undefined;
const SOCKET_DIR = "/var/run/postgresql";
const server = base ? new URL(base) : null;
const socketHere =
  server !== null &&
  ["127.0.0.1", "localhost", "[::1]"].includes(server.hostname) &&
  existsSync(path.join(SOCKET_DIR, `.s.PGSQL.${server.port || "5432"}`));

describe.skipIf(!socketHere)("DATABASE_URL through a Unix socket", () => {
  it("migrates, verifies a code and streams its status over the socket, as DATABASE_URL=…?host=<directory> names it", async () => {
    const scratch = await throwawayPostgres(base as string, "cp_socket");
    const url = new URL(scratch.url);
    url.hostname = "localhost";
    url.searchParams.set("host", SOCKET_DIR);
    const config = loadConfig({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "callproof-socket-")),
      DATABASE_URL: url.toString(),
    });
    const database = await openDatabase({ databaseUrl: config.databaseUrl });
    try {
      // a Unix socket has no client address: the pool's connections and the LISTEN one are not on TCP
      const [conn] = await database.db.rows<{ addr: string | null }>(sql`select inet_client_addr()::text as addr`);
      expect(conn).toEqual({ addr: null });
      const t = await buildTestApp({ database, listen: true });
      try {
        const { browser, organisation } = await signedInEmployee(t);
        const code = await generate(browser);
        const stream = await openEventStream<CodeStatus>(`${t.url}/api/codes/${code.id}/events`, {
          cookie: browser.cookieHeader(),
        });
        expect((await stream.next("live"))?.data.status).toBe("live");
        const site = `https://www.${organisation.domain}`;
        expect((await verify(t, code.words.join(" "), { origin: site })).json()).toMatchObject({ verified: true });
        expect((await stream.next("verified"))?.data).toMatchObject({
          id: code.id,
          status: "verified",
          site: `www.${organisation.domain}`,
        });
        await stream.close();
      } finally {
        await t.close();
      }
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});
