import { siteScope } from "@server/lib/origin";
import { CATALOGUES } from "@shared/i18n";
import { LANGUAGES } from "@shared/languages";
import { describe, expect, it } from "vitest";
import { candidateCodes, canonicalCode, drawWords, foldWord, parseWords, WORD_LISTS, WORDS } from "./words";

describe("the word list", () => {
  it("has 2048 distinct lower-case words whose first four letters are unique", () => {
    expect(WORDS).toHaveLength(2048);
    expect(new Set(WORDS).size).toBe(2048);
    expect(new Set(WORDS.map((w) => w.slice(0, 4))).size).toBe(2048);
    for (const w of WORDS) expect(w).toMatch(/^[a-z]{3,8}$/);
    // 2048³: above the 3.4 billion the product promises
    expect(2048 ** 3).toBeGreaterThan(3.4e9);
  });
});

describe("drawWords", () => {
  it("draws three list words", () => {
    const words = drawWords();
    expect(words).toHaveLength(3);
    for (const w of words) expect(WORDS).toContain(w);
  });

  it("draws every word uniformly (chi-squared over 2048 buckets)", () => {
    const perBucket = 60;
    const n = WORDS.length * perBucket;
    const index = new Map(WORDS.map((w, i) => [w, i]));
    const counts = new Array<number>(WORDS.length).fill(0);
    for (let i = 0; i < n / 3; i++) for (const w of drawWords()) counts[index.get(w) as number]! += 1;
    const chi2 = counts.reduce((sum, c) => sum + (c - perBucket) ** 2 / perBucket, 0);
    // 2047 degrees of freedom: mean 2047, sd ≈ 64. A modulo bias or a skewed source lands far outside.
    expect(chi2).toBeGreaterThan(2047 - 6 * 64);
    expect(chi2).toBeLessThan(2047 + 6 * 64);
    // Position does not matter either: the first word is as uniform as the others (coarse check on halves).
    let firstHalf = 0;
    for (let i = 0; i < 20_000; i++) if (WORDS.indexOf(drawWords()[0] as string) < 1024) firstHalf++;
    expect(Math.abs(firstHalf - 10_000)).toBeLessThan(6 * Math.sqrt(20_000 * 0.25));
  });
});

describe("parseWords", () => {
  it.each([
    ["abandon ability able", ["abandon", "ability", "able"]],
    ["ABANDON Ability aBLE", ["abandon", "ability", "able"]],
    ["abandon / ability / able", ["abandon", "ability", "able"]],
    ["abandon-ability-able", ["abandon", "ability", "able"]],
    ["abandon,ability, able", ["abandon", "ability", "able"]],
    ["abandon.ability.able.", ["abandon", "ability", "able"]],
    ["  abandon\t\nability   able  ", ["abandon", "ability", "able"]],
    ["aban abil able", ["abandon", "ability", "able"]],
    ["aband abili able", ["abandon", "ability", "able"]],
    ["add addi addr", ["add", "addict", "address"]],
    ["zoo zone zero", ["zoo", "zone", "zero"]],
    // accents are ignored, as the other languages need
    ["abandon ability ablé", ["abandon", "ability", "able"]],
  ])("reads %j", (typed, words) => {
    expect(parseWords(typed)).toEqual(words);
  });

  it.each([
    "",
    "abandon ability",
    "abandon ability able able",
    "abandox ability able",
    "aba ability able",
    "ab ability able",
    "abandon_ability_able",
    "hello big world",
    "abandon ability abléx",
    "abandon ability able?",
  ])("refuses %j", (typed) => {
    expect(parseWords(typed)).toBeNull();
  });

  it("gives one canonical form whatever was typed", () => {
    const a = parseWords("ABAN / abil - able");
    const b = parseWords("abandon ability able");
    expect(canonicalCode(a!)).toBe(canonicalCode(b!));
    expect(canonicalCode(b!)).toBe("abandon ability able");
  });

  it("reads back every code it draws, and each word by its first four letters", () => {
    for (const w of WORDS) expect(parseWords(`${w} ${w.slice(0, 4)} ${w.toUpperCase()}`)).toEqual([w, w, w]);
  });
});

describe("the six lists", () => {
  it.each(LANGUAGES)("%s: 2048 words in NFC, unique without accents and by their first four letters", (language) => {
    const words = WORD_LISTS[language];
    expect(words).toHaveLength(2048);
    for (const w of words) expect(w).toBe(w.normalize("NFC"));
    expect(new Set(words.map(foldWord)).size).toBe(2048);
    expect(new Set(words.map((w) => foldWord(w).slice(0, 4))).size).toBe(2048);
    for (const w of words) expect(foldWord(w)).toMatch(/^[a-z]{3,9}$/);
  });

  it.each(LANGUAGES)(
    "%s: every word reads back as itself, without accents, in upper case and by its first four letters",
    (language) => {
      for (const w of WORD_LISTS[language]) {
        const plain = foldWord(w);
        const typed = `${plain} ${plain.slice(0, 4).toUpperCase()} ${w.toUpperCase()}`;
        expect(parseWords(typed, 3, language)).toEqual([w, w, w]);
        expect(candidateCodes(typed)).toContainEqual({ language, words: [w, w, w] });
      }
    },
  );

  it.each(LANGUAGES)("%s: a drawn code's words all come from that one list", (language) => {
    for (let i = 0; i < 200; i++) for (const w of drawWords(language)) expect(WORD_LISTS[language]).toContain(w);
  });

  it("reads a code at most once per language, and never with words of two lists", () => {
    // "abaisser" is only French, "zoo" only English: no reading in any language.
    expect(candidateCodes("abaisser zoo zoo")).toEqual([]);
    expect(candidateCodes("abaisser abaisser abaisser")).toEqual([
      { language: "fr", words: ["abaisser", "abaisser", "abaisser"] },
    ]);
    // Words that English and French share give one reading in each, with each list's spelling.
    expect(candidateCodes("animal CAMERA badge")).toEqual([
      { language: "en", words: ["animal", "camera", "badge"] },
      { language: "fr", words: ["animal", "caméra", "badge"] },
    ]);
    for (const typed of ["animal camera badge", "anim came badg", "a b c", "", "animal camera"])
      expect(candidateCodes(typed).length).toBeLessThanOrEqual(LANGUAGES.length);
  });

  it("hashes a code's words in NFC whatever form they were given in", () => {
    const decomposed = "caméra".normalize("NFD");
    expect(canonicalCode([decomposed, "animal", "badge"])).toBe("caméra animal badge".normalize("NFC"));
  });

  it.each(LANGUAGES)("%s: the widget's example words are words of that language's list", (language) => {
    const example = CATALOGUES[language].widget.hint.split(/:\s*/).at(-1) ?? "";
    expect(parseWords(example, 3, language)).not.toBeNull();
  });
});

describe("siteScope", () => {
  const own = "https://callproof.example";
  it.each([
    [undefined, "any"],
    [own, "any"],
    ["https://shop.eu.acme.example", ["shop.eu.acme.example", "eu.acme.example", "acme.example"]],
    ["https://acme.example:8443", ["acme.example"]],
    ["http://localhost:5173", ["localhost"]],
    ["http://127.0.0.1:8080", ["127.0.0.1"]],
    ["http://[::1]:8080", ["[::1]"]],
    ["https://10.0.0.1", ["10.0.0.1"]],
    ["http://acme.example", []],
    ["http://sub.localhost", []],
    ["null", []],
    ["https://acme.example/", []],
    ["file://", []],
    ["not a url", []],
  ] as const)("%s → %j", (origin, scope) => {
    expect(siteScope(origin, own)).toEqual(scope);
  });
});
