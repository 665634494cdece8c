import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDatabaseUnavailable } from "@server/lib/database-errors";
import { counters, createOrganisation, generate, verify } from "@test/fixtures";
import { buildTestApp, createUser, signIn } from "@test/helpers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { openDatabase } from "./client";
import { startEmbedded, terminate } from "./pglite-thread";
import { auditLog, users } from "./schema";

const onPglite = process.env.TEST_DB !== "postgres";

/** A data directory on disk, opened as `npm start` opens it: PGlite in its own thread, from the build's seed. */
async function onDisk() {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), "callproof-thread-")), "db");
  return openDatabase({ dataDir: dir, pgliteSeed: inject("pgliteTemplate") });
}

const user = (email: string) => ({
  email,
  fullName: "Thread Test",
  passwordHash: "x",
  role: "client" as const,
  status: "active" as const,
  createdAt: new Date("2026-11-25T10:00:00Z"),
});

describe.skipIf(!onPglite)("the embedded database in its own thread", () => {
  it("runs Drizzle's statements and raw ones, with timestamps as dates and a unique violation's SQLSTATE", async () => {
    const database = await onDisk();
    try {
      const { db } = database;
      const [row] = await db.insert(users).values(user("one@example.com")).returning();
      expect(row?.createdAt).toEqual(new Date("2026-11-25T10:00:00Z"));
      const found = await db.select().from(users).where(eq(users.email, "one@example.com"));
      expect(found.map((u) => u.fullName)).toEqual(["Thread Test"]);
      const [counted] = await db.rows<{ n: number }>(sql`select count(*)::int8 as n from users`);
      expect(counted?.n).toBe(1);

      const duplicate = await db
        .insert(users)
        .values(user("one@example.com"))
        .catch((err: unknown) => err);
      const cause = (duplicate as Error).cause as { code?: string; constraint?: string };
      expect(cause.code).toBe("23505");
      expect(cause.constraint).toMatch(/email/);
    } finally {
      await database.close();
    }
  });

  it("commits a transaction whole and rolls one back whole, while other statements wait their turn", async () => {
    const database = await onDisk();
    try {
      const { db } = database;
      await db.transaction(async (tx) => {
        await tx.insert(users).values(user("a@example.com"));
        await tx.insert(users).values(user("b@example.com"));
      });
      const failed = db.transaction(async (tx) => {
        await tx.insert(users).values(user("c@example.com"));
        await tx.insert(users).values(user("a@example.com"));
      });
      // Sent while the transaction is open: it runs after it, and sees none of its rows.
      const outside = db.rows<{ email: string }>(sql`select email from users order by email`);
      await expect(failed).rejects.toThrow();
      expect((await outside).map((r) => r.email)).toEqual(["a@example.com", "b@example.com"]);

      // A rollback asked for by the caller (Drizzle's tx.rollback()) leaves nothing either.
      await db
        .transaction(async (tx) => {
          await tx.insert(users).values(user("d@example.com"));
          tx.rollback();
        })
        .catch(() => {});
      const emails = await db.rows<{ email: string }>(sql`select email from users order by email`);
      expect(emails.map((r) => r.email)).toEqual(["a@example.com", "b@example.com"]);
    } finally {
      await database.close();
    }
  });

  it("delivers notifications to this process's listeners until they stop listening", async () => {
    const database = await onDisk();
    try {
      const heard: string[] = [];
      let told: (payload: string) => void = () => {};
      const unlisten = await database.notifications.listen("thread_test", (payload) => {
        heard.push(payload);
        told(payload);
      });
      const next = new Promise<string>((resolve) => {
        told = resolve;
      });
      await database.db.execute(sql`select pg_notify('thread_test', 'hello')`);
      expect(await next).toBe("hello");
      await unlisten();
      await database.db.execute(sql`select pg_notify('thread_test', 'unheard')`);
      // A statement after the notification: had it been delivered, it would have come before this answer.
      await database.db.execute(sql`select 1`);
      expect(heard).toEqual(["hello"]);
    } finally {
      await database.close();
    }
  });

  it("once closed, answers every statement with an error the server turns into a 503, and frees the directory", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "callproof-thread-")), "db");
    const thread = startEmbedded(dir, inject("pgliteTemplate"));
    await thread.ready;
    await thread.close();
    const after = await thread.query("select 1").catch((err: unknown) => err);
    expect(after).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(after)).toBe(true);
    // The lock went with the thread: the directory opens again.
    const again = startEmbedded(dir, inject("pgliteTemplate"));
    await again.ready;
    expect((await again.query<{ n: number }>("select 1 as n")).rows).toEqual([{ n: 1 }]);
    await again.close();
  });
  it("tells the server when its thread is lost as in a crash, fails statements as a 503, and frees the directory", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), "callproof-thread-")), "db");
    const thread = startEmbedded(dir, inject("pgliteTemplate"));
    await thread.ready;
    await terminate(thread);
    expect(isDatabaseUnavailable(await thread.lost)).toBe(true);
    expect(isDatabaseUnavailable(await thread.query("select 1").catch((err: unknown) => err))).toBe(true);
    // A close is not a loss (serve.ts stops the server on a loss).
    const again = startEmbedded(dir, inject("pgliteTemplate"));
    await again.ready;
    let lost = false;
    void again.lost.then(() => {
      lost = true;
    });
    await again.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).toBe(false);
  });

  it("serves the product on it: sign-in by e-mailed code, a generated code, exactly one of 50 concurrent look-ups", async () => {
    const database = await onDisk();
    const t = await buildTestApp({ database });
    try {
      // Signed in through both real steps (signedInEmployee starts the session directly).
      const user = await createUser(t, { organisationId: (await createOrganisation(t)).id });
      const browser = await signIn(t, user.email);
      const { words } = await generate(browser);
      const answers = await Promise.all(Array.from({ length: 50 }, () => verify(t, words.join(" "))));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(50).fill(200));
      expect(answers.filter((a) => a.json().verified === true)).toHaveLength(1);
      expect(await counters(t, user.id)).toEqual({ generated: 1, verified: 1 });
      const audit = await database.db.select().from(auditLog).where(eq(auditLog.action, "code.verify"));
      expect(audit.filter((a) => a.outcome === "success")).toHaveLength(1);
      expect(audit).toHaveLength(50);
    } finally {
      await t.close();
      await database.close();
    }
    // A whole app on a database of its own thread, opened from the seed: the slowest test of the file.
  }, 60_000);
});
