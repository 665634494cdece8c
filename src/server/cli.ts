import path from "node:path";
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { meetsPasswordRules } from "@shared/validation";
import { z } from "zod";
import { BACKUP_USAGE, runBackupCommand } from "./backup";
import { ConfigError, loadConfig } from "./config";
import { openDatabase } from "./db/client";
import { ensureAdmin } from "./features/users/admin-accounts";

const USAGE = `Usage: npm run admin -- create --email you@example.com
${BACKUP_USAGE}
  create asks for the password (or reads it from standard input when that is not a terminal).
  Uses the same DATABASE_URL / DATA_DIR as npm start.`;

/** Reads a password without echoing it on a terminal; from a pipe, its first line. */
async function askPassword(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = "";
    for await (const chunk of process.stdin) {
      text += chunk;
      if (text.includes("\n")) break;
    }
    return text.split(/\r?\n/)[0] ?? "";
  }
  process.stdout.write(prompt);
  const muted = new Writable({ write: (_chunk, _enc, cb) => cb() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  return new Promise((resolve) => {
    rl.once("line", (line) => {
      rl.close();
      process.stdout.write("\n");
      resolve(line);
    });
  });
}

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === "backup" || command === "restore") return runBackupCommand(command, rest);
  const emailAt = rest.indexOf("--email");
  const email = emailAt >= 0 ? rest[emailAt + 1]?.trim().toLowerCase() : undefined;
  if (command !== "create" || !email) {
    console.error(USAGE);
    return 2;
  }
  if (!z.email().safeParse(email).success) {
    console.error(`"${email}" is not an e-mail address.`);
    return 2;
  }
  const password = await askPassword("Password: ");
  if (!meetsPasswordRules(password) || password.length > 128) {
    console.error("The password needs 8-128 characters, an upper-case letter and a special character.");
    return 2;
  }
  if (process.stdin.isTTY && (await askPassword("Repeat password: ")) !== password) {
    console.error("The passwords do not match.");
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: path.join(config.dataDir, "db") });
  try {
    const result = await ensureAdmin(database.db, email, password, new Date());
    console.log(
      result === "created"
        ? `Admin ${email} created. Sign in at ${config.publicUrl}/login`
        : `An account with ${email} already exists; nothing changed.`,
    );
    return result === "created" ? 0 : 1;
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    return 1;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  });
