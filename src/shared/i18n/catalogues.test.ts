import { describe, expect, it } from "vitest";
import { LOOKUP_TEXT, WIDGET_TEXT } from "../codes";
import { acceptedLanguages, LANGUAGES, pickLanguage, requestLanguage } from "../languages";
import { MESSAGES } from "../messages";
import { REPORT_FIELDS, REPORT_FORM_TEXT } from "../reports";
import { CATALOGUES, fillIn, inACallTexts, widgetTexts } from ".";

/** Every leaf of a catalogue section as "path → text" (arrays by index). */
function leaves(value: unknown, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof value === "string") out.set(prefix, value);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value))
      for (const [p, t] of leaves(v, prefix ? `${prefix}.${k}` : k)) out.set(p, t);
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("the catalogues", () => {
  const english = leaves(CATALOGUES.en);

  it.each(LANGUAGES)(
    "%s has every key of English, no other, each a non-blank text with English's placeholders",
    (language) => {
      const texts = leaves(CATALOGUES[language]);
      expect([...texts.keys()].sort()).toEqual([...english.keys()].sort());
      for (const [key, text] of texts) {
        expect(text.trim(), `${language} ${key}`).not.toBe("");
        expect(text, `${language} ${key}`).toBe(text.trim());
        expect(placeholders(text), `${language} ${key}`).toEqual(placeholders(english.get(key) ?? ""));
      }
    },
  );

  it.each(LANGUAGES.filter((l) => l !== "en"))(
    "%s is translated: no widget or page text is left in English",
    (language) => {
      const texts = leaves(CATALOGUES[language]);
      for (const [key, text] of texts) {
        // The placeholders-only lines ("Verified: {name} ({domain})") differ by their first word.
        expect(text, `${language} ${key}`).not.toBe(english.get(key));
      }
    },
  );

  it("keeps every English text exactly as the widget, the report form and the loader showed it", () => {
    const en = CATALOGUES.en.widget;
    expect(en.title).toBe(WIDGET_TEXT.title);
    expect(en.label).toBe(WIDGET_TEXT.label);
    expect(en.hint).toBe(WIDGET_TEXT.hint);
    expect(en.button).toBe(WIDGET_TEXT.button);
    expect(en.checking).toBe(WIDGET_TEXT.checking);
    expect(fillIn(en.verified, { name: "Ann Lee" })).toBe(WIDGET_TEXT.verified("Ann Lee", ""));
    expect(fillIn(en.verifiedCompany, { name: "Ann Lee", company: "Acme" })).toBe(
      WIDGET_TEXT.verified("Ann Lee", "Acme"),
    );
    expect(fillIn(en.verifiedCompanyDomain, { name: "Ann Lee", company: "Acme", domain: "acme.example" })).toBe(
      "Verified: Ann Lee from Acme (acme.example)",
    );
    expect(en.notVerified).toBe(MESSAGES.codeNotVerified);
    expect(en.notVerified).toBe(LOOKUP_TEXT.notVerified);
    expect(en.tooMany).toBe(LOOKUP_TEXT.tooMany);
    expect(en.unavailable).toBe(LOOKUP_TEXT.unavailable);
    expect(en.threeWords).toBe(WIDGET_TEXT.threeWords);
    expect(en.reportButton).toBe(REPORT_FORM_TEXT.reportButton);
    expect(en.reportHint).toBe(REPORT_FORM_TEXT.formHint);
    expect(en.sent).toBe(REPORT_FORM_TEXT.sent);
    expect(en.reportsTooMany).toBe(REPORT_FORM_TEXT.tooMany);
    expect(en.callerNumber).toBe(REPORT_FIELDS.callerNumber);
    expect(en.claimedName).toBe(REPORT_FIELDS.claimedName);
    expect(en.note).toBe(REPORT_FIELDS.note);
    expect(CATALOGUES.en.loader.loadFailed).toBe(MESSAGES.widgetLoadFailed);
    expect(inACallTexts("en").title).toBe("In a call?");
  });

  it("fills placeholders with the values as they are", () => {
    expect(fillIn("Vérifié : {name} — {company}", { name: "$& {name}", company: "A&B" })).toBe(
      "Vérifié : $& {name} — A&B",
    );
    expect(widgetTexts("xx")).toBe(CATALOGUES.en.widget);
  });
});

describe("the customer's language", () => {
  it.each([
    [["fr-CA"], "fr"],
    [["de", "pt-BR", "en"], "pt"],
    [["EN-gb"], "en"],
    [["cs_CZ"], "cs"],
    [[null, "", "es"], "es"],
    [["de", "nl"], undefined],
  ] as const)("%j → %s", (tags, language) => {
    expect(pickLanguage(tags)).toBe(language);
  });

  it("reads Accept-Language by quality, and a field before it", () => {
    expect(acceptedLanguages("de-DE,de;q=0.9,it;q=0.95,fr;q=0")).toEqual(["de-DE", "it", "de"]);
    expect(requestLanguage(undefined, "de-DE,it;q=0.5,fr;q=0")).toBe("it");
    expect(requestLanguage("cs", "fr")).toBe("cs");
    expect(requestLanguage("klingon", undefined)).toBe("en");
    expect(requestLanguage(undefined, `${"x,".repeat(1000)}fr`)).toBe("en");
  });
});
