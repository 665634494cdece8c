/**
 * Codes in the customer's language (CONTRACT.md "Code languages and the customer's language"): a code is
 * drawn from one of six BIP39 lists and verifies typed without accents, in any case, by 4-letter prefixes;
 * a look-up reads the typed words at most once per language and never mixes lists; the answers to the
 * widget are in the language it asked for.
 */
import { auditLog, identityCodes } from "@server/db/schema";
import { widgetTexts } from "@shared/i18n";
import { LANGUAGES, type Language } from "@shared/languages";
import { REPORT_FORM_TEXT } from "@shared/reports";
import { counters, createOrganisation, freshIp, signedInEmployee, storeCode, verify } from "@test/fixtures";
import { buildTestApp, createUser, type TestApp } from "@test/helpers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codeHash } from "./service";
import { foldWord, WORD_LISTS } from "./words";

let t: TestApp;
beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(async () => {
  await t?.close();
});

const notVerified = (language: Language = "en") => ({ verified: false, message: widgetTexts(language).notVerified });

/** The words as a customer might type them: upper case, without accents. */
const shouted = (words: readonly string[]) => words.map((w) => foldWord(w).toUpperCase()).join(" ");
/** The words by their first four letters (accent-free), separated by slashes. */
const prefixes = (words: readonly string[]) => words.map((w) => foldWord(w).slice(0, 4)).join(" / ");

async function verifyAudit() {
  return t.database.db.select().from(auditLog).where(eq(auditLog.action, "code.verify")).orderBy(auditLog.id);
}

describe("POST /api/generate-words {language}", () => {
  it.each(LANGUAGES)(
    "%s: three words of that list, in NFC, verified upper case without accents and by prefixes",
    async (language) => {
      const { user, browser } = await signedInEmployee(t);
      for (const typed of [shouted, prefixes]) {
        const res = await browser.post("/api/generate-words", { language });
        expect(res.statusCode).toBe(200);
        const body = res.json() as { id: number; words: string[]; language: string };
        expect(body.language).toBe(language);
        expect(body.words).toHaveLength(3);
        for (const w of body.words) {
          expect(WORD_LISTS[language]).toContain(w);
          expect(w).toBe(w.normalize("NFC"));
        }
        // Stored as the HMAC of the list's words (never their indices), audited with the language.
        const [row] = await t.database.db.select().from(identityCodes).where(eq(identityCodes.id, body.id));
        expect(row?.codeHash).toBe(codeHash(t.config.appSecret, body.words));
        const [generated] = await t.database.db
          .select()
          .from(auditLog)
          .where(eq(auditLog.target, String(body.id)));
        expect(generated?.action).toBe("code.generate");
        expect(generated?.detail).toMatchObject({ language });

        const answer = await verify(t, typed(body.words));
        expect(answer.json()).toMatchObject({ verified: true, caller: { fullName: "Alice Caller" } });
      }
      expect(await counters(t, user.id)).toEqual({ generated: 2, verified: 2 });
    },
  );

  it("is English without a language, and refuses an unknown one with a clear 400 and no code", async () => {
    const { browser } = await signedInEmployee(t);
    const plain = (await browser.post("/api/generate-words")).json() as { words: string[]; language: string };
    expect(plain.language).toBe("en");
    for (const w of plain.words) expect(WORD_LISTS.en).toContain(w);
    for (const language of ["de", "FR", "", 3, null]) {
      const res = await browser.post("/api/generate-words", { language });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    expect(await t.database.db.select().from(identityCodes)).toHaveLength(1);
  });
});

describe("look-up in any language", () => {
  it("reads a French code typed as its English homographs as the French code, and not as another", async () => {
    const a = await createOrganisation(t, { domain: "banque.example", companyName: "Banque A", websiteProved: true });
    const b = await createOrganisation(t, { domain: "bank-b.example", companyName: "Bank B", websiteProved: true });
    const alice = await createUser(t, { organisationId: a.id, fullName: "Alice Appel" });
    const bob = await createUser(t, { organisationId: b.id, fullName: "Bob Call" });
    // "camera animal badge" reads as English and as French ("caméra animal badge"): two different codes.
    const french = ["caméra", "animal", "badge"];
    await storeCode(t, alice.id, french);

    // Only the French code is live: it verifies, typed the English way.
    expect((await verify(t, "CAMERA animal badge")).json()).toMatchObject({
      verified: true,
      caller: { fullName: "Alice Appel" },
    });

    // Both live, from two organisations: on the product's own site, where both could verify, the look-up
    // cannot tell which one the customer heard, and verifies neither (and uses neither up).
    await storeCode(t, alice.id, ["caméra", "badge", "animal"]);
    await storeCode(t, bob.id, ["camera", "badge", "animal"]);
    expect((await verify(t, "camera badge animal")).json()).toEqual(notVerified());
    expect((await verify(t, "came badg anim")).json()).toEqual(notVerified());
    expect((await verifyAudit()).slice(-2).map((r) => r.detail?.reason)).toEqual(["ambiguous", "ambiguous"]);
    // On Banque A's own site only its own code can verify: it does, naming Alice and never Bob.
    expect((await verify(t, "camera badge animal", { origin: "https://banque.example" })).json()).toMatchObject({
      verified: true,
      caller: { fullName: "Alice Appel", companyName: "Banque A" },
    });
    // Bob's code was not used up by any of this: it still verifies on Bank B's site.
    expect((await verify(t, "camera badge animal", { origin: "https://bank-b.example" })).json()).toMatchObject({
      verified: true,
      caller: { fullName: "Bob Call" },
    });
    expect(await counters(t, bob.id)).toMatchObject({ verified: 1 });
  });

  it("never verifies words that only match after mixing lists", async () => {
    const { user } = await signedInEmployee(t);
    const fr = ["abaisser", "rivière", "pierre"];
    const en = ["zoo", "river", "stone"];
    await storeCode(t, user.id, fr);
    await storeCode(t, user.id, en);
    // A stored code whose words come from two lists (no generator makes one): no reading can reach it.
    const mixed = ["abaisser", "zoo", "pierre"];
    await storeCode(t, user.id, mixed);
    for (const typed of [
      "abaisser zoo pierre",
      "abai zoo pier",
      "zoo riviere stone",
      "abaisser river pierre",
      // the English words at the French words' positions in their lists
      [WORD_LISTS.fr.indexOf("abaisser"), WORD_LISTS.fr.indexOf("rivière"), WORD_LISTS.fr.indexOf("pierre")]
        .map((i) => WORD_LISTS.en[i])
        .join(" "),
    ]) {
      expect((await verify(t, typed)).json(), typed).toEqual(notVerified());
    }
    // Each one-language code still verifies.
    expect((await verify(t, "ABAISSER riviere PIER")).json()).toMatchObject({ verified: true });
    expect((await verify(t, "zoo rive ston")).json()).toMatchObject({ verified: true });
  });

  it("gives exactly one success to 50 concurrent look-ups of a French code typed without accents", async () => {
    const { user, browser } = await signedInEmployee(t);
    const code = (await browser.post("/api/generate-words", { language: "fr" })).json() as { words: string[] };
    const typed = shouted(code.words);
    const answers = await Promise.all(Array.from({ length: 50 }, () => verify(t, typed)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(50).fill(200));
    expect(answers.filter((a) => a.json().verified === true)).toHaveLength(1);
    expect(await counters(t, user.id)).toEqual({ generated: 1, verified: 1 });
    const audit = await verifyAudit();
    expect(audit).toHaveLength(50);
    expect(audit.filter((a) => a.outcome === "success")).toHaveLength(1);
  });

  it("keeps the same limit for every language: the 21st look-up from one network is refused", async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await verify(t, i % 2 ? "abaisser zoo pierre" : "zoo zoo zoo", { ip });
    const refused = await verify(t, "caméra animal badge", { ip, headers: { "accept-language": "fr" } });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toBe(widgetTexts("fr").tooMany);
  });
});

describe("the widget's language in the server's answers", () => {
  it.each(LANGUAGES)("%s: the not-verified answer, by the language field", async (language) => {
    const res = await verify(t, { words: "zoo zoo zoo", language });
    expect(res.json()).toEqual(notVerified(language));
    expect(res.headers["content-language"]).toBe(language);
  });

  it("falls back to Accept-Language, then English; the field wins over the header", async () => {
    const es = await verify(t, "zoo zoo zoo", { headers: { "accept-language": "de-DE, es;q=0.8, fr;q=0.5" } });
    expect(es.json()).toEqual(notVerified("es"));
    const field = await verify(t, { words: "zoo zoo zoo", language: "cs" }, { headers: { "accept-language": "es" } });
    expect(field.json()).toEqual(notVerified("cs"));
    for (const language of ["de", "x".repeat(35), undefined]) {
      const res = await verify(t, { words: "zoo zoo zoo", language });
      expect(res.json()).toEqual(notVerified("en"));
      expect(res.headers["content-language"]).toBe("en");
    }
    expect((await verify(t, { words: "zoo zoo zoo", language: "x".repeat(36) })).statusCode).toBe(400);
  });

  it("answers a report in the widget's language", async () => {
    const send = (body: object, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: "POST",
        url: "/api/reports",
        remoteAddress: freshIp(),
        headers: { "content-type": "application/json", ...headers },
        payload: JSON.stringify(body),
      });
    const fr = await send({ callerNumber: "+33 1 23 45 67 89", language: "fr" });
    expect(fr.statusCode).toBe(201);
    expect(fr.json()).toEqual({ message: widgetTexts("fr").sent });
    const pt = await send({ note: "o meu PIN" }, { "accept-language": "pt-PT" });
    expect(pt.json()).toEqual({ message: widgetTexts("pt").sent });
    const en = await send({ note: "my PIN" });
    expect(en.json()).toEqual({ message: REPORT_FORM_TEXT.sent });
  });
});
