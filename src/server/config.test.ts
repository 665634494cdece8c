import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config";

const dir = () => mkdtempSync(path.join(tmpdir(), "callproof-config-"));

describe("configuration", () => {
  it("runs with nothing configured, and keeps one generated APP_SECRET under DATA_DIR", () => {
    const DATA_DIR = dir();
    const a = loadConfig({ DATA_DIR });
    expect(a).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      publicUrl: "http://localhost:3000",
      publicOrigin: "http://localhost:3000",
      secureCookies: false,
      databaseUrl: undefined,
      smtpUrl: undefined,
      mailFrom: "CallProof <no-reply@localhost>",
      trustProxy: false,
      supportEmail: "support@localhost",
      logLevel: "info",
    });
    expect(a.appSecret.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(path.join(DATA_DIR, "app-secret"), "utf8").trim()).toBe(a.appSecret);
    expect(loadConfig({ DATA_DIR }).appSecret).toBe(a.appSecret);
  });

  it("derives PUBLIC_URL from PORT, and Secure cookies from an https PUBLIC_URL", () => {
    expect(loadConfig({ DATA_DIR: dir(), PORT: "8080" }).publicUrl).toBe("http://localhost:8080");
    const c = loadConfig({ DATA_DIR: dir(), PUBLIC_URL: "https://verify.example.com/", SMTP_URL: "smtp://mail:25" });
    expect(c.publicUrl).toBe("https://verify.example.com");
    expect(c.secureCookies).toBe(true);
  });

  it("reads TRUST_PROXY as a list of addresses and CIDR ranges or a hop count, and refuses true with the reason", () => {
    expect(loadConfig({ DATA_DIR: dir(), TRUST_PROXY: "10.0.0.1, 10.0.0.0/8, ::1, fd00::/8" }).trustProxy).toEqual([
      "10.0.0.1",
      "10.0.0.0/8",
      "::1",
      "fd00::/8",
    ]);
    expect(loadConfig({ DATA_DIR: dir(), TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(loadConfig({ DATA_DIR: dir(), TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(() => loadConfig({ DATA_DIR: dir(), TRUST_PROXY: "true" })).toThrow(
      /TRUST_PROXY must not be "true": .*any client writes/,
    );
  });

  it("reads OUTBOUND_ALLOWED_HOSTS (default external) and names a bad entry", () => {
    expect(loadConfig({ DATA_DIR: dir() }).outbound.text).toBe("external");
    expect(loadConfig({ DATA_DIR: dir(), OUTBOUND_ALLOWED_HOSTS: "private, hooks.corp.example" }).outbound.text).toBe(
      "private,hooks.corp.example",
    );
    expect(() => loadConfig({ DATA_DIR: dir(), OUTBOUND_ALLOWED_HOSTS: "external,intranet only" })).toThrow(
      /^Invalid configuration: OUTBOUND_ALLOWED_HOSTS entry "intranet only" is not one of external, loopback/,
    );
  });

  it("refuses an https PUBLIC_URL without SMTP_URL unless the dev outbox is asked for", () => {
    const https = { DATA_DIR: dir(), PUBLIC_URL: "https://verify.example.com" };
    expect(() => loadConfig(https)).toThrow(/SMTP_URL must be set when PUBLIC_URL is https/);
    expect(loadConfig({ ...https, DEV_OUTBOX: "true" }).smtpUrl).toBeUndefined();
    expect(loadConfig({ ...https, SMTP_URL: "smtp://mail.example:25" }).smtpUrl).toBe("smtp://mail.example:25");
  });

  it("writes the generated APP_SECRET atomically and refuses a stored one that is too short", () => {
    const DATA_DIR = dir();
    const secrets = Array.from({ length: 5 }, () => loadConfig({ DATA_DIR }).appSecret);
    expect(new Set(secrets).size).toBe(1);
    expect(readdirSync(DATA_DIR)).toEqual(["app-secret"]);
    expect(statSync(path.join(DATA_DIR, "app-secret")).mode & 0o777).toBe(0o600);

    const truncated = dir();
    writeFileSync(path.join(truncated, "app-secret"), "abc\n");
    expect(() => loadConfig({ DATA_DIR: truncated })).toThrow(/APP_SECRET .* shorter than 32 characters/);
  });

  it.each([
    ["PORT", { PORT: "http" }],
    ["PORT", { PORT: "70000" }],
    ["PUBLIC_URL", { PUBLIC_URL: "not a url" }],
    ["PUBLIC_URL", { PUBLIC_URL: "ftp://x.example" }],
    ["DATABASE_URL", { DATABASE_URL: "mysql://localhost/db" }],
    ["SMTP_URL", { SMTP_URL: "http://mail.example" }],
    ["ADMIN_PASSWORD", { ADMIN_EMAIL: "boss@example.com" }],
    ["ADMIN_EMAIL", { ADMIN_PASSWORD: "Str0ng-Password!" }],
    ["ADMIN_EMAIL", { ADMIN_EMAIL: "nobody", ADMIN_PASSWORD: "Str0ng-Password!" }],
    ["ADMIN_PASSWORD", { ADMIN_EMAIL: "boss@example.com", ADMIN_PASSWORD: "weakpassword" }],
    ["TRUST_PROXY", { TRUST_PROXY: "yes please" }],
    ["TRUST_PROXY", { TRUST_PROXY: "10.0.0.0/33" }],
    ["TRUST_PROXY", { TRUST_PROXY: "0" }],
    ["DEV_OUTBOX", { DEV_OUTBOX: "yes" }],
    ["APP_SECRET", { APP_SECRET: "short" }],
    ["SUPPORT_EMAIL", { SUPPORT_EMAIL: "help" }],
    ["LOG_LEVEL", { LOG_LEVEL: "loud" }],
    ["OUTBOUND_ALLOWED_HOSTS", { OUTBOUND_ALLOWED_HOSTS: "10.0.0.0/33" }],
  ])("refuses a bad %s with a message naming it", (name, env) => {
    expect(() => loadConfig({ DATA_DIR: dir(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dir(), ...env })).toThrow(new RegExp(`\\b${name}\\b`));
  });
});
