import type { AddressInfo } from "node:net";
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

export type CapturedMail = { to: string[]; from: string; subject: string; text: string; html: string };

/** A real SMTP server on 127.0.0.1 that keeps every mail it receives, parsed. */
export class MailCapture {
  readonly messages: CapturedMail[] = [];
  private waiters: Array<() => void> = [];
  private server: SMTPServer;
  url = "";

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", async () => {
          try {
            const parsed = await PostalMime.parse(Buffer.concat(chunks));
            this.messages.push({
              to: (parsed.to ?? []).map((a) => (a.address ?? "").toLowerCase()),
              from: parsed.from?.address ?? "",
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: parsed.html ?? "",
            });
            for (const w of this.waiters.splice(0)) w();
            callback();
          } catch (err) {
            callback(err as Error);
          }
        });
      },
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.server.address() as AddressInfo;
    this.url = `smtp://127.0.0.1:${port}`;
    return this;
  }

  /** Mails to this address, oldest first. */
  to(address: string): CapturedMail[] {
    return this.messages.filter((m) => m.to.includes(address.toLowerCase()));
  }

  /** Waits for the next mail to `address` matching `match` that arrived after `after` mails to it. */
  async waitFor(address: string, match: (m: CapturedMail) => boolean = () => true, after = 0, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.to(address).slice(after).find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${address} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** The newest mail's 6-digit sign-in code for this address. */
  async signInCode(address: string, after = 0): Promise<string> {
    const mail = await this.waitFor(address, (m) => /\b\d{6}\b/.test(m.text), after);
    return /\b(\d{6})\b/.exec(mail.text)?.[1] as string;
  }

  /** The first link in the newest matching mail whose path starts with `pathPrefix`. */
  async link(address: string, pathPrefix: string, after = 0): Promise<URL> {
    const re = new RegExp(`https?://[^\\s"<>]*${pathPrefix.replace(/[/?]/g, "\\$&")}[^\\s"<>]*`);
    const mail = await this.waitFor(address, (m) => re.test(m.text), after);
    return new URL(re.exec(mail.text)?.[0] as string);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
