import { auditLog, passkeys, users } from "@server/db/schema";
import { ACCOUNT_TEXT, PASSKEY, RESET_KEEPS_PASSKEYS } from "@shared/account";
import { MESSAGES } from "@shared/messages";
import { Browser, buildTestApp, createUser, GOOD_PASSWORD, signIn, type TestApp } from "@test/helpers";
import { SoftwarePasskey } from "@test/software-authenticator";
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

const ORIGIN = "http://localhost:3000";
let ipSeq = 0;
const freshIp = () => `10.2.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

type Options = { challenge: string; rp: { id: string }; user: { id: string }; excludeCredentials: { id: string }[] };

/** A signed-in user who has just added a software passkey through the API. */
async function userWithPasskey(fields: Parameters<typeof createUser>[1] = {}, synced = false) {
  const user = await createUser(t, fields);
  const browser = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
  const key = new SoftwarePasskey(ORIGIN, synced);
  const options = (await browser.post("/api/account/passkeys/options")).json() as Options;
  const added = await browser.post("/api/account/passkeys", { response: key.register(options) });
  expect(added.statusCode).toBe(201);
  return { user, browser, key, passkeyId: added.json().id as number };
}

/** A signed-out browser asking to sign in with a passkey; answers the browser and its options. */
async function signInOptions() {
  const browser = new Browser(t.app, freshIp());
  const res = await browser.post("/api/auth/passkey/options");
  expect(res.statusCode).toBe(200);
  return { browser, options: res.json() as { challenge: string; rpId: string; userVerification: string } };
}

async function lastAudit(action: string, actorId?: number) {
  const [row] = await t.database.db
    .select()
    .from(auditLog)
    .where(
      actorId === undefined
        ? eq(auditLog.action, action)
        : and(eq(auditLog.action, action), eq(auditLog.actorId, actorId)),
    )
    .orderBy(desc(auditLog.id))
    .limit(1);
  return row;
}

describe("adding a passkey", () => {
  it("offers a discoverable credential with user verification on the PUBLIC_URL host, and stores the new key", async () => {
    const user = await createUser(t, { fullName: "Pat Key" });
    const browser = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
    const res = await browser.post("/api/account/passkeys/options");
    expect(res.statusCode).toBe(200);
    const options = res.json();
    expect(options.rp).toEqual({ name: "CallProof", id: "localhost" });
    expect(options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
    expect(options.user.name).toBe(user.email);
    // the user handle reveals neither the id nor the e-mail
    expect(Buffer.from(options.user.id, "base64url")).toHaveLength(32);
    expect(options.timeout).toBe(PASSKEY.challengeLifetimeMs);

    const key = new SoftwarePasskey(ORIGIN, true);
    const before = t.mail.to(user.email).length;
    const added = await browser.post("/api/account/passkeys", { response: key.register(options) });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({ name: "Passkey 1", lastUsedAt: null });

    const [row] = await t.database.db.select().from(passkeys).where(eq(passkeys.userId, user.id));
    expect(row).toMatchObject({ credentialId: key.id, counter: 0, backupEligible: true, backedUp: true });
    expect(row?.transports).toEqual(["internal"]);

    const mail = await t.mail.waitFor(user.email, (m) => /passkey was added/i.test(m.subject), before);
    expect(mail.text).toContain('"Passkey 1"');
    expect((await lastAudit("passkey.add", user.id))?.outcome).toBe("success");

    const account = (await browser.get("/api/account")).json();
    expect(account.passkeys).toEqual([
      { id: row?.id, name: "Passkey 1", createdAt: expect.any(String), lastUsedAt: null },
    ]);
    // the next options exclude the registered key, so the same authenticator is not added twice
    const next = (await browser.post("/api/account/passkeys/options")).json() as Options;
    expect(next.excludeCredentials.map((c) => c.id)).toEqual([key.id]);
  });

  it("names the passkey after the device, or as asked", async () => {
    const user = await createUser(t);
    const browser = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
    const chrome = { "user-agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Chrome/126.0 Safari/537.36" };
    let options = (await browser.post("/api/account/passkeys/options")).json() as Options;
    const first = await browser.post(
      "/api/account/passkeys",
      { response: new SoftwarePasskey(ORIGIN).register(options) },
      chrome,
    );
    expect(first.json().name).toBe("Chrome on macOS");
    options = (await browser.post("/api/account/passkeys/options")).json() as Options;
    const named = await browser.post("/api/account/passkeys", {
      response: new SoftwarePasskey(ORIGIN).register(options),
      name: "  Work laptop ",
    });
    expect(named.json().name).toBe("Work laptop");
  });

  it("refuses a response to a used, expired or foreign challenge, a wrong origin and a missing user verification", async () => {
    const user = await createUser(t);
    const browser = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
    const add = (response: unknown) => browser.post("/api/account/passkeys", { response });

    // used: the same response twice
    let options = (await browser.post("/api/account/passkeys/options")).json() as Options;
    const key = new SoftwarePasskey(ORIGIN);
    const response = key.register(options);
    expect((await add(response)).statusCode).toBe(201);
    const replay = await add(new SoftwarePasskey(ORIGIN).register(options));
    expect(replay.statusCode).toBe(400);
    expect(replay.json().message).toBe(ACCOUNT_TEXT.passkeyChallengeInvalid);
    expect((await lastAudit("passkey.add", user.id))?.detail).toEqual({ reason: "challenge used" });

    // expired
    options = (await browser.post("/api/account/passkeys/options")).json() as Options;
    t.clock.advance(PASSKEY.challengeLifetimeMs + 1000);
    const late = await add(new SoftwarePasskey(ORIGIN).register(options));
    expect(late.statusCode).toBe(400);
    expect(late.json().message).toBe(ACCOUNT_TEXT.passkeyChallengeInvalid);
    expect((await lastAudit("passkey.add", user.id))?.detail).toEqual({ reason: "challenge expired" });

    // issued to another session of the same user
    const fresh = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
    options = (await fresh.post("/api/account/passkeys/options")).json() as Options;
    const elsewhere = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
    const foreign = await elsewhere.post("/api/account/passkeys", {
      response: new SoftwarePasskey(ORIGIN).register(options),
    });
    expect(foreign.statusCode).toBe(400);
    expect((await lastAudit("passkey.add", user.id))?.detail).toEqual({ reason: "challenge other browser" });

    // a phishing site's origin, another relying party, no user verification
    for (const overrides of [
      { origin: "https://callproof.evil.example" },
      { rpId: "evil.example" },
      { userVerified: false },
    ]) {
      options = (await fresh.post("/api/account/passkeys/options")).json() as Options;
      const res = await fresh.post("/api/account/passkeys", {
        response: new SoftwarePasskey(ORIGIN).register(options, overrides),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(ACCOUNT_TEXT.passkeyRegistrationFailed);
    }
    const stored = await t.database.db.select().from(passkeys).where(eq(passkeys.userId, user.id));
    expect(stored.map((p) => p.credentialId)).toEqual([key.id]);
  });

  it("needs a sign-in of the last 15 minutes", async () => {
    const user = await createUser(t);
    const browser = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
    t.clock.advance(PASSKEY.recentSignInMs - 60_000);
    await browser.get("/api/auth/whoami");
    t.clock.advance(2 * 60_000);
    const res = await browser.post("/api/account/passkeys/options");
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(ACCOUNT_TEXT.passkeyNeedsRecentSignIn);
    expect((await lastAudit("passkey.add", user.id))?.outcome).toBe("denied");
  });

  it("answers 400 for malformed responses and 401 signed out, never 5xx", async () => {
    const user = await createUser(t);
    const browser = await signIn(t, user.email, GOOD_PASSWORD, freshIp());
    const options = (await browser.post("/api/account/passkeys/options")).json() as Options;
    const good = new SoftwarePasskey(ORIGIN).register(options);
    for (const response of [
      {},
      { ...good, type: "password" },
      { ...good, response: { ...good.response, attestationObject: "not base64 !" } },
      { ...good, response: { ...good.response, attestationObject: "AAAA" } },
      { ...good, response: { ...good.response, clientDataJSON: Buffer.from("{").toString("base64url") } },
      { ...good, id: "x".repeat(5000) },
    ]) {
      const res = await browser.post("/api/account/passkeys", { response });
      expect(res.statusCode).toBe(400);
    }
    const tooLong = await browser.post("/api/account/passkeys", { response: good, name: "n".repeat(61) });
    expect(tooLong.statusCode).toBe(400);
    expect((await new Browser(t.app).post("/api/account/passkeys/options")).statusCode).toBe(401);
    expect((await new Browser(t.app).post("/api/account/passkeys", { response: good })).statusCode).toBe(401);
  });
});

describe("signing in with a passkey", () => {
  it("signs in on its own: no password, no e-mailed code; counter, last use and session recorded", async () => {
    const { user, key, passkeyId } = await userWithPasskey({ role: "superuser" });
    const { browser, options } = await signInOptions();
    expect(options.rpId).toBe("localhost");
    expect(options.userVerification).toBe("required");
    expect(options).not.toHaveProperty("allowCredentials.0");
    const cookie = browser.cookie("cp_passkey");
    expect(cookie).toBeDefined();

    const mailsBefore = t.mail.to(user.email).length;
    const res = await browser.post(
      "/api/auth/passkey/verify",
      { response: key.assert(options) },
      { "user-agent": "Mozilla/5.0 (Windows NT 10.0) Edg/126.0" },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ role: "superuser" });
    expect(res.cookies.find((c) => c.name === "cp_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    expect((await browser.get("/api/auth/whoami")).json()).toEqual({ role: "superuser" });
    expect(browser.cookie("cp_passkey")).toBeUndefined();
    expect(t.mail.to(user.email)).toHaveLength(mailsBefore);

    const [row] = await t.database.db.select().from(passkeys).where(eq(passkeys.id, passkeyId));
    expect(row?.counter).toBe(1);
    expect(row?.lastUsedAt?.getTime()).toBe(t.clock.now().getTime());
    const account = (await browser.get("/api/account")).json();
    expect(account.sessions.find((s: { current: boolean }) => s.current).userAgent).toContain("Edg/");
    expect(account.passkeys[0].lastUsedAt).toBe(t.clock.now().toISOString());
    expect(await lastAudit("passkey.sign-in", user.id)).toMatchObject({
      outcome: "success",
      target: String(passkeyId),
    });
  });

  it("refuses a replayed assertion and a challenge used once already", async () => {
    const { user, key } = await userWithPasskey();
    const { browser, options } = await signInOptions();
    const assertion = key.assert(options);
    expect((await browser.post("/api/auth/passkey/verify", { response: assertion })).statusCode).toBe(200);
    const again = new Browser(t.app, freshIp());
    const replay = await browser.post("/api/auth/passkey/verify", { response: assertion });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().message).toBe(ACCOUNT_TEXT.passkeyChallengeInvalid);
    // the same challenge signed afresh (higher counter) is refused too
    const fresh = await browser.post("/api/auth/passkey/verify", { response: key.assert(options) });
    expect(fresh.statusCode).toBe(400);
    expect((await lastAudit("passkey.sign-in", user.id))?.detail).toEqual({ reason: "challenge used" });
    expect((await again.get("/api/auth/whoami")).statusCode).toBe(401);
  });

  it("refuses an expired challenge (5 minutes)", async () => {
    const { user, key } = await userWithPasskey();
    const { browser, options } = await signInOptions();
    t.clock.advance(PASSKEY.challengeLifetimeMs + 1000);
    const res = await browser.post("/api/auth/passkey/verify", { response: key.assert(options) });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(ACCOUNT_TEXT.passkeyChallengeInvalid);
    expect((await browser.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await lastAudit("passkey.sign-in", user.id))?.detail).toEqual({ reason: "challenge expired" });
  });

  it("refuses a challenge issued to another browser", async () => {
    const { user, key } = await userWithPasskey();
    const { options } = await signInOptions();
    const attacker = new Browser(t.app, freshIp());
    await attacker.post("/api/auth/passkey/options"); // has a challenge cookie of its own
    const res = await attacker.post("/api/auth/passkey/verify", { response: key.assert(options) });
    expect(res.statusCode).toBe(400);
    expect((await attacker.get("/api/auth/whoami")).statusCode).toBe(401);
    expect((await lastAudit("passkey.sign-in", user.id))?.detail).toEqual({ reason: "challenge other browser" });
    const cookieless = new Browser(t.app, freshIp());
    expect((await cookieless.post("/api/auth/passkey/verify", { response: key.assert(options) })).statusCode).toBe(400);
  });

  it("refuses a wrong origin or relying party, and the challenge is used up by the attempt", async () => {
    const { key } = await userWithPasskey();
    for (const overrides of [
      { origin: "https://callproof.evil.example" },
      { origin: "http://localhost:3001" },
      { rpId: "evil.example" },
    ]) {
      const { browser, options } = await signInOptions();
      const res = await browser.post("/api/auth/passkey/verify", { response: key.assert(options, overrides) });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe(ACCOUNT_TEXT.passkeySignInFailed);
      expect((await browser.get("/api/auth/whoami")).statusCode).toBe(401);
      const retry = await browser.post("/api/auth/passkey/verify", { response: key.assert(options) });
      expect(retry.statusCode).toBe(400);
    }
  });

  it("refuses an assertion without user verification or with a forged signature", async () => {
    const { key } = await userWithPasskey();
    let { browser, options } = await signInOptions();
    expect(
      (await browser.post("/api/auth/passkey/verify", { response: key.assert(options, { userVerified: false }) }))
        .statusCode,
    ).toBe(401);
    ({ browser, options } = await signInOptions());
    const impostor = new SoftwarePasskey(ORIGIN);
    const forged = { ...impostor.assert(options, { rpId: "localhost" }), id: key.id, rawId: key.id };
    const res = await browser.post("/api/auth/passkey/verify", { response: forged });
    expect(res.statusCode).toBe(401);
    expect((await browser.get("/api/auth/whoami")).statusCode).toBe(401);
  });

  it("refuses and audits a signature counter that goes backwards", async () => {
    const { user, key, passkeyId } = await userWithPasskey();
    let { browser, options } = await signInOptions();
    expect(
      (await browser.post("/api/auth/passkey/verify", { response: key.assert(options, { counter: 10 }) })).statusCode,
    ).toBe(200);
    ({ browser, options } = await signInOptions());
    const cloned = await browser.post("/api/auth/passkey/verify", { response: key.assert(options, { counter: 7 }) });
    expect(cloned.statusCode).toBe(401);
    expect((await browser.get("/api/auth/whoami")).statusCode).toBe(401);
    expect(await lastAudit("passkey.sign-in", user.id)).toMatchObject({
      outcome: "denied",
      target: String(passkeyId),
      detail: { reason: "counter went backwards", storedCounter: 10, receivedCounter: 7 },
    });
    const [row] = await t.database.db.select().from(passkeys).where(eq(passkeys.id, passkeyId));
    expect(row?.counter).toBe(10);
  });

  it("accepts a counter that stays 0 (authenticators that keep none)", async () => {
    const { key } = await userWithPasskey({}, true);
    for (let i = 0; i < 2; i++) {
      const { browser, options } = await signInOptions();
      expect(
        (await browser.post("/api/auth/passkey/verify", { response: key.assert(options, { counter: 0 }) })).statusCode,
      ).toBe(200);
    }
  });

  it("signs nothing in for a deactivated or pending account", async () => {
    const { user, key } = await userWithPasskey({ role: "superuser" });
    for (const [status, message] of [
      ["deactivated", MESSAGES.accountDeactivated],
      ["pending", MESSAGES.accountPending],
    ] as const) {
      await t.database.db.update(users).set({ status }).where(eq(users.id, user.id));
      const { browser, options } = await signInOptions();
      const res = await browser.post("/api/auth/passkey/verify", { response: key.assert(options) });
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe(message);
      expect((await browser.get("/api/auth/whoami")).statusCode).toBe(401);
      expect(await lastAudit("passkey.sign-in", user.id)).toMatchObject({
        outcome: "denied",
        detail: { reason: status },
      });
    }
  });

  it("refuses a passkey that is not registered", async () => {
    const { browser, options } = await signInOptions();
    const res = await browser.post("/api/auth/passkey/verify", {
      response: new SoftwarePasskey(ORIGIN).assert(options),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe(ACCOUNT_TEXT.passkeyUnknown);
    expect((await lastAudit("passkey.sign-in"))?.detail).toEqual({ reason: "unknown passkey" });
  });

  it("limits sign-in challenges per client address", async () => {
    const browser = new Browser(t.app, freshIp());
    for (let i = 0; i < PASSKEY.signInOptionsPerWindow; i++) {
      expect((await browser.post("/api/auth/passkey/options")).statusCode).toBe(200);
    }
    const res = await browser.post("/api/auth/passkey/options");
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("answers 400 for malformed bodies, never 5xx", async () => {
    const { key } = await userWithPasskey();
    const { browser, options } = await signInOptions();
    const good = key.assert(options);
    for (const body of [
      {},
      { response: {} },
      { response: { ...good, response: { ...good.response, signature: "%%%" } } },
      { response: { ...good, response: { ...good.response, authenticatorData: "AAAA" } } },
      { response: { ...good, response: { ...good.response, clientDataJSON: "bm90IGpzb24" } } },
      { response: { ...good, rawId: "other" } },
    ]) {
      const res = await browser.post("/api/auth/passkey/verify", body);
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }
  });
});

describe("a password reset", () => {
  it("keeps the passkeys and says so: the reset ends every session, and the passkey still signs in", async () => {
    const { user, browser: before, key } = await userWithPasskey();
    const mailsBefore = t.mail.to(user.email).length;
    expect(
      (await new Browser(t.app, freshIp()).post("/api/auth/forgot-password", { email: user.email })).statusCode,
    ).toBe(200);
    await t.app.deps.background.idle();
    const link = await t.mail.link(user.email, "/reset-password?token=", mailsBefore);
    const mail = t.mail.to(user.email).at(-1);
    expect(mail?.text.replace(/\s+/g, " ")).toContain(RESET_KEEPS_PASSKEYS);
    const reset = await new Browser(t.app, freshIp()).post("/api/auth/reset-password", {
      token: link.searchParams.get("token"),
      newPassword: "Brand-New-Secret-77",
    });
    expect(reset.statusCode).toBe(200);
    expect((await before.get("/api/auth/whoami")).statusCode).toBe(401);
    expect(await t.database.db.select().from(passkeys).where(eq(passkeys.userId, user.id))).toHaveLength(1);
    const { browser, options } = await signInOptions();
    const signedIn = await browser.post("/api/auth/passkey/verify", { response: key.assert(options) });
    expect(signedIn.statusCode).toBe(200);
    expect((await browser.get("/api/account")).json().passkeys).toHaveLength(1);
  });
});

describe("renaming and removing passkeys", () => {
  it("renames and removes only the user's own passkeys; a removed passkey no longer signs in", async () => {
    const { user, browser, key, passkeyId } = await userWithPasskey();
    const other = await userWithPasskey();

    const renamed = await browser.request("PATCH", `/api/account/passkeys/${passkeyId}`, { name: "YubiKey" });
    expect(renamed.statusCode).toBe(200);
    expect((await browser.get("/api/account")).json().passkeys[0].name).toBe("YubiKey");
    expect(
      (await browser.request("PATCH", `/api/account/passkeys/${passkeyId}`, { name: "\u202eevil" })).statusCode,
    ).toBe(400);
    expect(
      (await browser.request("PATCH", `/api/account/passkeys/${other.passkeyId}`, { name: "Mine" })).statusCode,
    ).toBe(404);
    expect((await browser.request("DELETE", `/api/account/passkeys/${other.passkeyId}`)).statusCode).toBe(404);
    expect((await browser.request("DELETE", "/api/account/passkeys/abc")).statusCode).toBe(400);

    const removed = await browser.request("DELETE", `/api/account/passkeys/${passkeyId}`);
    expect(removed.statusCode).toBe(200);
    expect((await browser.get("/api/account")).json().passkeys).toEqual([]);
    expect(await lastAudit("passkey.remove", user.id)).toMatchObject({ outcome: "success", target: String(passkeyId) });

    const { browser: signedOut, options } = await signInOptions();
    const res = await signedOut.post("/api/auth/passkey/verify", { response: key.assert(options) });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe(ACCOUNT_TEXT.passkeyUnknown);
    // the other user's passkey still works
    const second = await signInOptions();
    expect(
      (await second.browser.post("/api/auth/passkey/verify", { response: other.key.assert(second.options) }))
        .statusCode,
    ).toBe(200);
  });
});
