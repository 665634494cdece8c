import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";

export type Mail = { to: string; subject: string; text: string; html: string };

export type Mailer = { send(mail: Mail): Promise<void>; close(): void };

/** Real mail over SMTP (smtp:// or smtps://). */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from, ...mail });
    },
    close: () => transport.close(),
  };
}

/**
 * The development outbox: each mail becomes an .eml file under DATA_DIR/outbox, and one
 * console line shows its subject and the codes and links in it, so a new user can sign in
 * with nothing configured. Only used when SMTP_URL is unset.
 */
export function outboxMailer(dataDir: string, from: string, print: (line: string) => void): Mailer {
  const dir = path.join(dataDir, "outbox");
  const build = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  let seq = 0;
  return {
    async send(mail) {
      const info = await build.sendMail({ from, ...mail });
      await mkdir(dir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const file = path.join(dir, `${stamp}-${++seq}.eml`);
      await writeFile(file, info.message as Buffer);
      const extras = [...(mail.text.match(/https?:\/\/\S+/g) ?? []), ...(mail.text.match(/\b\d{6}\b/g) ?? [])];
      print(`[dev outbox] to ${mail.to}: "${mail.subject}" ${extras.join(" ")} (${file})`);
    },
    close: () => build.close(),
  };
}
