import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

/** A start-up failure whose message tells the operator what is wrong and what to do; printed without a stack. */
export class StartError extends Error {
  override name = "StartError";
}

/** Lock files this process holds (a lock with this process's pid but not in here was left by an earlier run). */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the embedded database's directory for this process: PGlite is single-process, and two processes
 * writing one data directory would damage it. A lock left by a process that no longer runs is taken over.
 * The lock is a file beside the directory (`<dir>.lock`, holding the pid), so that backups of the
 * directory never carry it. Returns the release function.
 */
export function lockDataDir(dir: string): () => void {
  const file = `${path.resolve(dir)}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(file);
      return () => {
        held.delete(file);
        rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(readFileSync(file, "utf8").trim());
      const inUse = pid === process.pid ? held.has(file) : Number.isInteger(pid) && pid > 0 && alive(pid);
      if (inUse) {
        throw new StartError(
          `The embedded database in ${dir} is in use by another process (pid ${pid}). ` +
            "Stop that process first; to run several processes, use PostgreSQL (DATABASE_URL).",
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new StartError(`Could not lock the embedded database in ${dir} (${file}).`);
}

/** The message for a data directory PGlite cannot open. */
export function damagedDataDir(dir: string, err: unknown): StartError {
  const why = err instanceof Error ? err.message : String(err);
  return new StartError(
    `The embedded database in ${dir} could not be opened (${why}). It may be damaged: restore a backup ` +
      `(npm run admin -- restore --in FILE) or move the directory away to start with an empty database.`,
  );
}
