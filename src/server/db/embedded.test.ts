import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { backupEmbedded, restoreEmbedded } from "@server/backup";
import { sql } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { openDatabase as open } from "./client";
import { StartError } from "./embedded-lock";

const onPglite = process.env.TEST_DB !== "postgres";

/**
 * Opens the embedded database on `dataDir`: a new directory starts from the seed the build ships
 * (scripts/pglite-seed.ts; the global set-up made it), as `npm start` does, not from initdb.
 */
const openDatabase = (opts: { dataDir: string }) => open({ ...opts, pgliteSeed: inject("pgliteTemplate") });
const tempDir = () => mkdtempSync(path.join(tmpdir(), "callproof-embedded-"));

async function emails(dir: string): Promise<string[]> {
  const database = await openDatabase({ dataDir: dir });
  try {
    return (await database.db.rows<{ email: string }>(sql`select email from users order by email`)).map((r) => r.email);
  } finally {
    await database.close();
  }
}

async function addUser(dir: string, email: string) {
  const database = await openDatabase({ dataDir: dir });
  try {
    await database.db.execute(
      sql`insert into users (email, full_name, password_hash, role, status, created_at)
          values (${email}, 'Backup Test', 'x', 'client', 'active', now())`,
    );
  } finally {
    await database.close();
  }
}

// Each test starts the engine on a data directory two to seven times (2-4 s each here, twice that while the
// suite's other files run): the backup test took 14 s alone and 26-30 s in a full run, at the 30 s default.
describe.skipIf(!onPglite)("the embedded database's directory", { timeout: 90_000 }, () => {
  it("starts new from the build's seed, migrated and empty; without a seed PGlite can load, by initdb", async () => {
    const seeded = path.join(tempDir(), "db");
    expect(await emails(seeded)).toEqual([]);
    // A seed from another PGlite version (here: not a tarball at all) is set aside, not left half-loaded.
    const junk = path.join(tempDir(), "seed.tar.gz");
    writeFileSync(junk, "not a data directory");
    const dir = path.join(tempDir(), "db");
    const database = await open({ dataDir: dir, pgliteSeed: junk });
    try {
      await database.db.execute(
        sql`insert into users (email, full_name, password_hash, role, status, created_at)
            values ('initdb@example.com', 'Seed Test', 'x', 'client', 'active', now())`,
      );
    } finally {
      await database.close();
    }
    expect(await emails(dir)).toEqual(["initdb@example.com"]);
  });

  it("is used by one process at a time: a second open stops with a clear message", async () => {
    const dir = path.join(tempDir(), "db");
    const first = await openDatabase({ dataDir: dir });
    try {
      const second = openDatabase({ dataDir: dir });
      await expect(second).rejects.toThrow(StartError);
      await expect(second).rejects.toThrow(/in use by another process \(pid \d+\)/);
    } finally {
      await first.close();
    }
    // once closed, it opens again; a lock left by a process that is gone does not block it
    writeFileSync(`${dir}.lock`, "999999999");
    const again = await openDatabase({ dataDir: dir });
    await again.close();
  });

  it("that is damaged stops the start with a message saying what to do", async () => {
    const dir = path.join(tempDir(), "db");
    await (await openDatabase({ dataDir: dir })).close();
    writeFileSync(path.join(dir, "global", "pg_control"), Buffer.alloc(8192, 7));
    const opening = openDatabase({ dataDir: dir });
    await expect(opening).rejects.toThrow(StartError);
    await expect(opening).rejects.toThrow(/could not be opened.*restore a backup/);
  });

  it("is backed up and restored whole; the database it replaced is kept aside", async () => {
    const dir = path.join(tempDir(), "db");
    await addUser(dir, "before@example.com");
    const file = path.join(tempDir(), "backup.tar.gz");
    expect(await backupEmbedded(dir, file)).toBeGreaterThan(1000);

    await addUser(dir, "after@example.com");
    expect(await emails(dir)).toEqual(["after@example.com", "before@example.com"]);

    const kept = await restoreEmbedded(dir, file);
    expect(await emails(dir)).toEqual(["before@example.com"]);
    expect(kept).toMatch(/db\.before-restore-/);
    expect(await emails(kept ?? "")).toEqual(["after@example.com", "before@example.com"]);
  });

  it("refuses a file that is not a backup and leaves the database as it was", async () => {
    const dir = path.join(tempDir(), "db");
    await addUser(dir, "stays@example.com");
    const junk = path.join(tempDir(), "junk.tar.gz");
    writeFileSync(junk, "not a backup");
    await expect(restoreEmbedded(dir, junk)).rejects.toThrow(/not a backup/);
    expect(await emails(dir)).toEqual(["stays@example.com"]);
  });

  it("is not backed up while a server holds it", async () => {
    const dir = path.join(tempDir(), "db");
    const running = await openDatabase({ dataDir: dir });
    try {
      await expect(backupEmbedded(dir, path.join(tempDir(), "b.tar.gz"))).rejects.toThrow(/in use/);
    } finally {
      await running.close();
    }
  });
});
