import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { meetsPasswordRules } from "@shared/validation";
import { z } from "zod";
import { BACKUP_USAGE, runBackupCommand } from "./backup";
import { ConfigError, loadConfig } from "./config";
import { openDatabase } from "./db/client";
import { verifyAudit } from "./features/audit/chain";
import { ensureAdmin } from "./features/users/admin-accounts";

const USAGE = `Usage: npm run admin -- create --email you@example.com
       npm run admin -- audit verify [--expect <position>:<hash>]
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
  if (command === "audit" && rest[0] === "verify") return auditVerify(rest.slice(1));
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
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.embeddedDir,
  });
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

/**
 * `audit verify`: proves the audit log's chain (see features/audit/chain.ts); exits 0 when intact, 1 naming
 * the first event changed, inserted or removed outside the product, 2 for a bad argument.
 */
async function auditVerify(args: string[]): Promise<number> {
  const expectAt = args.indexOf("--expect");
  let expect: { position: number; mac: string } | undefined;
  if (expectAt >= 0) {
    const match = /^(\d+):([A-Za-z0-9_-]+)$/.exec(args[expectAt + 1] ?? "");
    if (!match) {
      console.error("--expect takes <position>:<hash>, as a checkpoint's log line gives them.");
      return 2;
    }
    expect = { position: Number(match[1]), mac: match[2] as string };
  }
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.embeddedDir,
  });
  try {
    const started = performance.now();
    const result = await verifyAudit(database.db, config.appSecret, expect);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (!result.intact) {
      const which = result.eventId === null ? "the log" : `event ${result.eventId}`;
      console.error(`audit log altered: ${which}: ${result.reason} (${result.events} events intact before it)`);
      return 1;
    }
    console.log(`audit log intact: ${result.events} events`);
    if (result.pending > 0) console.log(`${result.pending} events not checkpointed yet (not counted as intact)`);
    if (result.head) console.log(`head: ${result.head.position}:${result.head.mac} (${seconds} s)`);
    return 0;
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
