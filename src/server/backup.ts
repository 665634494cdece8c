import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { loadConfig } from "./config";
import { lockDataDir } from "./db/embedded-lock";

export const BACKUP_USAGE = `       npm run admin -- backup --out FILE     (embedded database; stop the server first)
       npm run admin -- restore --in FILE     (embedded database; stop the server first)`;

const stamp = () => new Date().toISOString().replace(/[:.]/g, "-");

/** Writes the embedded database (its whole data directory, gzipped tar) to `out`. */
export async function backupEmbedded(dir: string, out: string): Promise<number> {
  if (!existsSync(path.join(dir, "PG_VERSION"))) throw new Error(`There is no embedded database in ${dir}.`);
  const unlock = lockDataDir(dir);
  try {
    const db = await PGlite.create(dir);
    try {
      const dump = await db.dumpDataDir("gzip");
      const bytes = Buffer.from(await dump.arrayBuffer());
      // The dump holds password hashes and sealed secrets: readable by its owner only.
      writeFileSync(out, bytes, { mode: 0o600 });
      return bytes.length;
    } finally {
      await db.close();
    }
  } finally {
    unlock();
  }
}

/**
 * Replaces the embedded database with the backup in `input`. The backup is unpacked and opened in a new
 * directory first; only when that works is the current directory moved aside (kept as
 * `<dir>.before-restore-<time>`) and the restored one put in its place. Returns where the old one went.
 */
export async function restoreEmbedded(dir: string, input: string): Promise<string | null> {
  const dump = new Blob([readFileSync(input)]);
  mkdirSync(path.dirname(dir), { recursive: true });
  const unlock = lockDataDir(dir);
  const staging = `${dir}.restoring-${stamp()}`;
  try {
    const db = await PGlite.create(staging, { loadDataDir: dump }).catch((err: unknown) => {
      throw new Error(`${input} is not a backup of the embedded database (${(err as Error).message}).`);
    });
    try {
      await db.query("select count(*) from users");
    } finally {
      await db.close();
    }
    let kept: string | null = null;
    if (existsSync(dir)) {
      kept = `${dir}.before-restore-${stamp()}`;
      renameSync(dir, kept);
    }
    renameSync(staging, dir);
    return kept;
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  } finally {
    unlock();
  }
}

/** `backup --out FILE` / `restore --in FILE` of the operator CLI; returns the exit code. */
export async function runBackupCommand(command: "backup" | "restore", args: string[]): Promise<number> {
  const flag = command === "backup" ? "--out" : "--in";
  const file = args[args.indexOf(flag) + 1];
  if (!args.includes(flag) || !file) {
    console.error(`Usage: ${BACKUP_USAGE.trim()}`);
    return 2;
  }
  const config = loadConfig();
  if (config.databaseUrl) {
    console.error(
      "DATABASE_URL is set: back up PostgreSQL with pg_dump and restore with pg_restore (see docs/operations.md).",
    );
    return 2;
  }
  const dir = config.embeddedDir;
  try {
    if (command === "backup") {
      const size = await backupEmbedded(dir, path.resolve(file));
      console.log(`Backed up ${dir} to ${path.resolve(file)} (${(size / 1024).toFixed(0)} KB).`);
    } else {
      const kept = await restoreEmbedded(dir, path.resolve(file));
      console.log(
        `Restored ${dir} from ${path.resolve(file)}.${kept ? ` The previous database was kept in ${kept}.` : ""}`,
      );
    }
    return 0;
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}
