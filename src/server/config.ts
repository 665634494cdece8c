import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { type OutboundPolicy, parseOutboundPolicy } from "@server/lib/outbound";
import { meetsPasswordRules } from "@shared/validation";
import { z } from "zod";

export type Config = {
  port: number;
  host: string;
  publicUrl: string;
  /** origin of PUBLIC_URL: the product's own site */
  publicOrigin: string;
  secureCookies: boolean;
  databaseUrl: string | undefined;
  dataDir: string;
  /** the embedded database's directory, DATA_DIR/db (used without DATABASE_URL) */
  embeddedDir: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  /**
   * Which peers' X-Forwarded-For is believed: none (false), the addresses or CIDR ranges of the
   * proxies, or the number of proxy hops in front of the server.
   */
  trustProxy: false | number | string[];
  appSecret: string;
  supportEmail: string;
  logLevel: string;
  /** worker processes (node:cluster); more than 1 only with PostgreSQL */
  webConcurrency: number;
  /** bearer token of GET /metrics; unset: no metrics endpoint */
  metricsToken: string | undefined;
  /** on SIGTERM, how long readiness says 503 before the server stops accepting */
  shutdownDelayMs: number;
  /** DNS servers for site proofs (`ip` or `ip:port`); empty: the system's */
  siteDnsServers: string[];
  /** tests only (NODE_ENV=test): the port of the plain-http site-file attempt (80 otherwise; the outbound policy decides whether http is tried) */
  siteCheckTestHttpPort: number | null;
  /** after this many days, stored client addresses are cut to their /24 (IPv4) or /48 (IPv6) */
  retentionIpDays: number;
  /** audit events older than this many days are deleted */
  retentionAuditDays: number;
  /** calls and their checks older than this many days are deleted, with the webhook deliveries naming them */
  retentionCallsDays: number;
  /** where the server may connect on an organisation's behalf (OUTBOUND_ALLOWED_HOSTS; default `external`) */
  outbound: OutboundPolicy;
  /** failed code look-ups a minute, platform-wide, above which an alert is logged (nobody is refused) */
  codeGuessAlertPerMinute: number;
  /**
   * DATABASE_DIRECT_URL (default DATABASE_URL): the server itself, for LISTEN and migrations; when it
   * differs, DATABASE_URL is taken to be a transaction-mode pooler (PgBouncer)
   */
  databaseDirectUrl: string | undefined;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function fail(name: string, why: string): never {
  throw new ConfigError(`Invalid configuration: ${name} ${why}`);
}

function urlOf(name: string, value: string, protocols: string[]): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(name, `must be a URL (got "${value}")`);
  }
  if (!protocols.includes(url.protocol)) fail(name, `must start with ${protocols.map((p) => `${p}//`).join(" or ")}`);
  return url;
}

/**
 * Reads and validates the environment once. A wrong value throws a ConfigError naming the variable.
 * APP_SECRET, when unset, is generated once and kept in DATA_DIR/app-secret.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const get = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };

  const portText = get("PORT") ?? "3000";
  if (!/^\d+$/.test(portText) || Number(portText) > 65535)
    fail("PORT", `must be a port number 0-65535 (got "${portText}")`);
  const port = Number(portText);

  const host = get("HOST") ?? "0.0.0.0";

  const publicUrl = (get("PUBLIC_URL") ?? `http://localhost:${port}`).replace(/\/+$/, "");
  const pub = urlOf("PUBLIC_URL", publicUrl, ["http:", "https:"]);

  const databaseUrl = get("DATABASE_URL");
  if (databaseUrl) urlOf("DATABASE_URL", databaseUrl, ["postgres:", "postgresql:"]);
  const databaseDirectUrl = get("DATABASE_DIRECT_URL") ?? databaseUrl;
  if (databaseDirectUrl && !databaseUrl) fail("DATABASE_DIRECT_URL", "needs DATABASE_URL (the pooler) as well");
  if (databaseDirectUrl) urlOf("DATABASE_DIRECT_URL", databaseDirectUrl, ["postgres:", "postgresql:"]);

  const dataDir = path.resolve(get("DATA_DIR") ?? "./data");

  const smtpUrl = get("SMTP_URL");
  if (smtpUrl) urlOf("SMTP_URL", smtpUrl, ["smtp:", "smtps:"]);

  // Without SMTP every mail, sign-in codes included, is printed to the log: fine on a developer's
  // machine, a leak on a public https site unless someone asked for it.
  const devOutbox = get("DEV_OUTBOX");
  if (devOutbox !== undefined && devOutbox !== "true" && devOutbox !== "false")
    fail("DEV_OUTBOX", `must be "true" or "false" (got "${devOutbox}")`);
  if (!smtpUrl && pub.protocol === "https:" && devOutbox !== "true")
    fail(
      "SMTP_URL",
      "must be set when PUBLIC_URL is https: without it sign-in codes and links are written to the log. Set DEV_OUTBOX=true to use the dev outbox anyway",
    );

  const mailFrom = get("MAIL_FROM") ?? "CallProof <no-reply@localhost>";

  const adminEmailRaw = get("ADMIN_EMAIL");
  const adminPassword = env.ADMIN_PASSWORD || undefined;
  let adminEmail: string | undefined;
  if (adminEmailRaw || adminPassword) {
    if (!adminEmailRaw) fail("ADMIN_EMAIL", "must be set when ADMIN_PASSWORD is set");
    if (!adminPassword) fail("ADMIN_PASSWORD", "must be set when ADMIN_EMAIL is set");
    adminEmail = adminEmailRaw.toLowerCase();
    if (!z.email().safeParse(adminEmail).success)
      fail("ADMIN_EMAIL", `must be an e-mail address (got "${adminEmailRaw}")`);
    if (!meetsPasswordRules(adminPassword) || adminPassword.length > 128)
      fail("ADMIN_PASSWORD", "must be 8-128 characters with an upper-case letter and a special character");
  }

  const trustProxy = parseTrustProxy(get("TRUST_PROXY"));

  const supportEmail = get("SUPPORT_EMAIL") ?? "support@localhost";
  if (!/^[^\s@]+@[^\s@]+$/.test(supportEmail))
    fail("SUPPORT_EMAIL", `must be an e-mail address (got "${supportEmail}")`);

  const logLevel = get("LOG_LEVEL") ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    fail("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}`);

  const webConcurrency = wholeNumber("WEB_CONCURRENCY", get("WEB_CONCURRENCY") ?? "1", 1, 64);
  if (webConcurrency > 1 && !databaseUrl)
    fail("WEB_CONCURRENCY", "above 1 needs DATABASE_URL: the embedded database serves one process only");
  const metricsToken = get("METRICS_TOKEN");
  if (metricsToken !== undefined && metricsToken.length < 16) fail("METRICS_TOKEN", "must be at least 16 characters");
  const shutdownDelayMs = wholeNumber("SHUTDOWN_DELAY_SECONDS", get("SHUTDOWN_DELAY_SECONDS") ?? "0", 0, 120) * 1000;
  const retentionIpDays = wholeNumber("RETENTION_IP_DAYS", get("RETENTION_IP_DAYS") ?? "30", 0, 9999);
  const retentionAuditDays = wholeNumber("RETENTION_AUDIT_DAYS", get("RETENTION_AUDIT_DAYS") ?? "400", 1, 9999);
  const retentionCallsDays = wholeNumber("RETENTION_CALLS_DAYS", get("RETENTION_CALLS_DAYS") ?? "90", 1, 9999);
  const codeGuessAlertPerMinute = wholeNumber(
    "CODE_GUESS_ALERT_PER_MINUTE",
    get("CODE_GUESS_ALERT_PER_MINUTE") ?? "600",
    1,
    9999,
  );
  const siteDnsServers = (get("SITE_DNS_SERVERS") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of siteDnsServers)
    if (!isIP(server.replace(/^\[(.*)\](:\d+)?$/, "$1").replace(/^([\d.]+):\d+$/, "$1")))
      fail(
        "SITE_DNS_SERVERS",
        `must be a comma-separated list of IP addresses, each optionally with :port (got "${server}")`,
      );

  const testPortText = get("SITE_CHECK_TEST_HTTP_PORT");
  let siteCheckTestHttpPort: number | null = null;
  if (testPortText !== undefined) {
    if (env.NODE_ENV !== "test") fail("SITE_CHECK_TEST_HTTP_PORT", "is for tests only (NODE_ENV=test)");
    if (!/^\d{1,5}$/.test(testPortText) || Number(testPortText) > 65535)
      fail("SITE_CHECK_TEST_HTTP_PORT", `must be a port number (got "${testPortText}")`);
    siteCheckTestHttpPort = Number(testPortText);
  }

  let outbound: OutboundPolicy;
  try {
    outbound = parseOutboundPolicy(get("OUTBOUND_ALLOWED_HOSTS") ?? "external");
  } catch (err) {
    fail("OUTBOUND_ALLOWED_HOSTS", (err as Error).message);
  }

  let appSecret = get("APP_SECRET");
  if (appSecret !== undefined && appSecret.length < 32) fail("APP_SECRET", "must be at least 32 characters");
  appSecret ??= readOrCreateSecret(dataDir);

  return {
    port,
    host,
    publicUrl,
    publicOrigin: pub.origin,
    secureCookies: pub.protocol === "https:",
    databaseUrl,
    dataDir,
    embeddedDir: path.join(dataDir, "db"),
    smtpUrl,
    mailFrom,
    adminEmail,
    adminPassword,
    trustProxy,
    appSecret,
    supportEmail,
    logLevel,
    webConcurrency,
    metricsToken,
    shutdownDelayMs,
    retentionIpDays,
    retentionAuditDays,
    retentionCallsDays,
    siteDnsServers,
    siteCheckTestHttpPort,
    outbound,
    codeGuessAlertPerMinute,
    databaseDirectUrl,
  };
}

function wholeNumber(name: string, text: string, min: number, max: number): number {
  if (!/^\d{1,4}$/.test(text) || Number(text) < min || Number(text) > max)
    fail(name, `must be a whole number from ${min} to ${max} (got "${text}")`);
  return Number(text);
}

/** Parses TRUST_PROXY: unset or "false", a hop count, or a list of addresses and CIDR ranges; never "true". */
function parseTrustProxy(text: string | undefined): false | number | string[] {
  if (text === undefined || text === "false") return false;
  if (text === "true")
    fail(
      "TRUST_PROXY",
      'must not be "true": that believes the left-most X-Forwarded-For entry, which any client writes, so every client could choose its own IP and escape the rate limits. Give the proxies\' addresses or CIDR ranges (127.0.0.1,10.0.0.0/8) or the number of proxies in front of the server (1)',
    );
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops < 1 || hops > 10) fail("TRUST_PROXY", `as a hop count must be 1 to 10 (got "${text}")`);
    return hops;
  }
  const entries = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = "", bits, extra] = entry.split("/");
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined)
      fail(
        "TRUST_PROXY",
        `must be a comma-separated list of proxy addresses or CIDR ranges, or a hop count (got "${entry}")`,
      );
  }
  return entries;
}

/** The generated secret's length (32 random bytes, base64url). */
const GENERATED_SECRET_LENGTH = 43;

/**
 * The APP_SECRET kept under DATA_DIR: read if present (and long enough), else generated and written
 * atomically (a temp file renamed into place, so no process ever reads a half-written secret). When two
 * processes race, the first rename wins and both read the file that stands.
 */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, "app-secret");
  const read = () => {
    const secret = readFileSync(file, "utf8").trim();
    if (secret.length < 32)
      fail("APP_SECRET", `in ${file} is shorter than 32 characters: delete the file to generate a new one`);
    return secret;
  };
  if (existsSync(file)) return read();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  if (secret.length !== GENERATED_SECRET_LENGTH) throw new Error("unexpected secret length");
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temp, `${secret}\n`, { mode: 0o600, flag: "wx" });
  try {
    // link() fails when the file exists already: the secret another process wrote first stays.
    linkSync(temp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    rmSync(temp, { force: true });
  }
  return read();
}
