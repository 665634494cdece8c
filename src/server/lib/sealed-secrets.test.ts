import { readFileSync } from "node:fs";
import path from "node:path";
import { migrationsFolder } from "@server/db/client";
import type { SsoConnectionRow } from "@server/features/sso/repository";
import { openClientSecret } from "@server/features/sso/service";
import { SSO_TEXT } from "@shared/sso";
import { createEmployer, TRUST_PROXY_ENV } from "@test/fixtures";
import { type Browser, buildTestApp, signedIn, type TestApp } from "@test/helpers";
import { Receiver } from "@test/webhook-receiver";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seal } from "./crypto";
import { resealPlainSecrets, SEALED_PURPOSES, sealSecret } from "./sealed-secrets";

const ENV = { ...TRUST_PROXY_ENV, NODE_ENV: "test", OUTBOUND_ALLOWED_HOSTS: "loopback" };

let t: TestApp;
let receiver: Receiver;
beforeEach(async () => {
  t = await buildTestApp({ env: ENV });
  receiver = await new Receiver().start();
});
afterEach(async () => {
  await receiver.stop();
  await t?.close();
});

type Org = { id: number; browser: Browser; webhookSecret: string; accessCode: string };

/** An organisation whose superuser is signed in, with a webhook (its secret) and an employee access code. */
async function organisation(): Promise<Org> {
  const employer = await createEmployer(t);
  const browser = await signedIn(t, employer.user);
  const hook = await browser.request("PUT", "/api/employer/webhook", { url: receiver.url });
  expect(hook.statusCode, hook.body).toBe(200);
  const code = await browser.post("/api/employer/generate-access-code", { maxUsers: 5 });
  expect(code.statusCode, code.body).toBe(200);
  return {
    id: employer.org.id,
    browser,
    webhookSecret: hook.json().secret,
    accessCode: code.json().code,
  };
}

const sealedWebhook = async (org: Org) =>
  (
    await t.database.db.rows<{ s: string }>(
      sql`select secret_sealed as s from webhook_endpoints where organisation_id = ${org.id}`,
    )
  )[0]?.s as string;
const sealedCode = async (org: Org) =>
  (
    await t.database.db.rows<{ s: string }>(
      sql`select code_sealed as s from employee_access_codes where organisation_id = ${org.id}`,
    )
  )[0]?.s as string;
const setSealedWebhook = (org: Org, value: string) =>
  t.database.db.rows(sql`update webhook_endpoints set secret_sealed = ${value} where organisation_id = ${org.id}`);
const setSealedCode = (org: Org, value: string) =>
  t.database.db.rows(sql`update employee_access_codes set code_sealed = ${value} where organisation_id = ${org.id}`);

/** Migration 0025's statements, as a database upgraded from before it runs them. */
async function runMigration0025() {
  const text = readFileSync(path.join(migrationsFolder, "0025_hashed_sign_in_limit_keys.sql"), "utf8");
  for (const statement of text.split("--> statement-breakpoint")) await t.database.db.rows(sql.raw(statement));
}

/** The sealed value opens nowhere else: organisation B's access-code panel never shows A's webhook secret. */
async function expectUnreadableCodePanel(org: Org, foreign: string) {
  const res = await org.browser.get("/api/employer/access-codes");
  expect(res.statusCode).toBe(200);
  expect(res.body).not.toContain(foreign);
  expect(res.body).not.toContain("whsec_");
  // The panel still shows the code's facts, with no code and why (src/web access-code-panel).
  expect(res.json()).toMatchObject({ code: null, maxUsers: 5, usedCount: 0 });
}

/** A test event to an endpoint whose stored secret does not open is not signed with anything: it fails with the reason. */
async function expectUnsignedTestEvent(org: Org) {
  expect((await org.browser.post("/api/employer/webhook/test", {})).statusCode).toBe(202);
  await expect
    .poll(async () => (await org.browser.get("/api/employer/webhook/deliveries")).json()[0]?.lastError)
    .toBe("the signing secret cannot be read: save the endpoint again");
  expect(receiver.received).toHaveLength(0);
}

describe("sealed secrets are bound to their organisation and purpose", () => {
  it("a sealed value copied into another organisation's row of another purpose opens nowhere: no secret shown, no delivery signed", async () => {
    const a = await organisation();
    const b = await organisation();
    expect((await b.browser.get("/api/employer/access-codes")).json().code).toBe(b.accessCode);
    const aWebhook = await sealedWebhook(a);
    const bCode = await sealedCode(b);
    // A's webhook secret into B's access-code row, and B's access code into A's webhook row.
    await setSealedCode(b, aWebhook);
    await setSealedWebhook(a, bCode);
    await expectUnreadableCodePanel(b, a.webhookSecret);
    await expectUnsignedTestEvent(a);
    // The same purpose in another organisation does not open either: A's access code in B's row.
    await setSealedCode(b, await sealedCode(a));
    await expectUnreadableCodePanel(b, a.accessCode);
    // Generating a new code is still refused while this one is active (the answer says why), never a 5xx.
    expect((await b.browser.post("/api/employer/generate-access-code", { maxUsers: 5 })).statusCode).toBe(409);
  });

  it("a value sealed plain (before this release, or by its previous one) is re-sealed at the start; a copy then opens nowhere else", async () => {
    const a = await organisation();
    const b = await organisation();
    // As a server before the fix stored them: plain `seal`, no organisation or purpose.
    await setSealedWebhook(a, seal(t.config.appSecret, a.webhookSecret));
    await setSealedCode(a, seal(t.config.appSecret, a.accessCode));
    await setSealedCode(b, seal(t.config.appSecret, b.accessCode));
    // A plain value is not accepted for reading (the start re-seals them before it listens).
    expect((await a.browser.get("/api/employer/access-codes")).json().code).toBeNull();

    expect(await resealPlainSecrets(t.database.db, t.config.appSecret)).toEqual({ resealed: 3, unreadable: 0 });
    expect(await resealPlainSecrets(t.database.db, t.config.appSecret)).toEqual({ resealed: 0, unreadable: 0 });
    expect((await a.browser.get("/api/employer/access-codes")).json().code).toBe(a.accessCode);
    expect((await b.browser.get("/api/employer/access-codes")).json().code).toBe(b.accessCode);
    // A's re-sealed webhook secret still signs A's deliveries.
    expect((await a.browser.post("/api/employer/webhook/test", {})).statusCode).toBe(202);
    const [got] = await receiver.waitFor(1);
    const signed = new Webhook(a.webhookSecret).verify(String(got?.body), {
      "webhook-id": String(got?.headers["webhook-id"]),
      "webhook-timestamp": String(got?.headers["webhook-timestamp"]),
      "webhook-signature": String(got?.headers["webhook-signature"]),
    });
    expect(signed).toMatchObject({ type: "webhook.test" });

    // Copied now, the re-sealed value opens nowhere else, and the next start does not re-seal it there.
    await setSealedCode(b, await sealedWebhook(a));
    await expectUnreadableCodePanel(b, a.webhookSecret);
    expect(await resealPlainSecrets(t.database.db, t.config.appSecret)).toEqual({ resealed: 0, unreadable: 1 });
    await expectUnreadableCodePanel(b, a.webhookSecret);
  });

  it("migration 0025 deletes the sign-in counters keyed by a plain e-mail, and no other counter", async () => {
    const until = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    for (const key of ["signin-fail:acct:ann@alpha.test", "signin-code-fail:acct:ann@alpha.test", "forgot:ip:10.0.0.1"])
      await t.database.db.rows(sql`insert into rate_limits (key, hits, allowed, refused, expires_at)
        values (${key}, array[now()], true, 0, ${until}::timestamptz)`);
    await runMigration0025();
    const left = await t.database.db.rows<{ key: string }>(sql`select key from rate_limits`);
    expect(left.map((r) => r.key)).toEqual(["forgot:ip:10.0.0.1"]);
  });

  it("an SSO client secret opens only in its own organisation's connection: elsewhere it must be typed again (400)", async () => {
    const a = await organisation();
    const b = await organisation();
    const { appSecret } = t.config;
    const row = (organisationId: number, clientSecretSealed: string) =>
      ({ organisationId, clientSecretSealed }) as SsoConnectionRow;
    const own = sealSecret(appSecret, SEALED_PURPOSES.ssoClientSecret, a.id, "client-secret-of-a");
    expect(openClientSecret(t.app.deps, row(a.id, own))).toBe("client-secret-of-a");
    const refusal = { statusCode: 400, message: SSO_TEXT.clientSecretRequiredAgain };
    expect(() => openClientSecret(t.app.deps, row(b.id, own))).toThrow(expect.objectContaining(refusal));
    const webhookOfB = await sealedWebhook(b);
    expect(() => openClientSecret(t.app.deps, row(b.id, webhookOfB))).toThrow(expect.objectContaining(refusal));
  });
});
