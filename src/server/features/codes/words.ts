import { randomInt } from "node:crypto";
import { wordlist as czech } from "@scure/bip39/wordlists/czech.js";
import { wordlist as english } from "@scure/bip39/wordlists/english.js";
import { wordlist as french } from "@scure/bip39/wordlists/french.js";
import { wordlist as italian } from "@scure/bip39/wordlists/italian.js";
import { wordlist as portuguese } from "@scure/bip39/wordlists/portuguese.js";
import { wordlist as spanish } from "@scure/bip39/wordlists/spanish.js";
import { IDENTITY_CODE } from "@shared/constants";
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from "@shared/languages";

/**
 * The BIP39 lists of the six code languages: 2048 common words each, unique by their first four letters
 * and unique without accents (measured in words.test.ts), so a word may be typed without its accents and
 * by its first four letters alone. 2048³ ≈ 8.6 billion codes per language. The package ships the French
 * and Spanish words decomposed (NFD): they are kept here, shown and hashed in NFC.
 */
export const WORD_LISTS: Record<Language, readonly string[]> = {
  en: english,
  fr: french.map((w) => w.normalize("NFC")),
  es: spanish.map((w) => w.normalize("NFC")),
  it: italian,
  pt: portuguese,
  cs: czech,
};

/** The English list (the default language). */
export const WORDS: readonly string[] = WORD_LISTS.en;

/** A typed word as it is compared: lower case, without accents ("Câble" → "cable"). */
export function foldWord(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

type Entry = { word: string; folded: string };
type Index = { byWord: Map<string, string>; byPrefix: Map<string, Entry> };

/** Per language: folded word → list word; folded first four letters → the word (words of 4+ letters). */
const INDEX = Object.fromEntries(
  LANGUAGES.map((language) => {
    const entries = WORD_LISTS[language].map((word) => ({ word, folded: foldWord(word) }));
    const index: Index = {
      byWord: new Map(entries.map((e) => [e.folded, e.word])),
      byPrefix: new Map(entries.filter((e) => e.folded.length >= 4).map((e) => [e.folded.slice(0, 4), e])),
    };
    return [language, index];
  }),
) as Record<Language, Index>;

/** Three words of one language's list, drawn uniformly and independently with the CSPRNG (no modulo bias). */
export function drawWords(language: Language = DEFAULT_LANGUAGE, count: number = IDENTITY_CODE.words): string[] {
  const words = WORD_LISTS[language];
  return Array.from({ length: count }, () => words[randomInt(words.length)] as string);
}

/** The separators CONTRACT.md allows between words: white space, `/`, `-`, `,` and `.` (any run of them). */
const SEPARATORS = /[\s/,.-]+/u;

/** The typed tokens of a code, folded ("Câble / RIVER" → ["cable", "river"]). */
function tokensOf(input: string): string[] {
  return input.split(SEPARATORS).filter(Boolean).map(foldWord);
}

/** The list word a folded token stands for in one language: the word itself, or 4+ leading letters of exactly one. */
function resolveWord(index: Index, token: string): string | undefined {
  const whole = index.byWord.get(token);
  if (whole) return whole;
  if (token.length < 4) return undefined;
  const entry = index.byPrefix.get(token.slice(0, 4));
  return entry?.folded.startsWith(token) ? entry.word : undefined;
}

/** The words of `tokens` in one language, or null unless every token maps within that language's list. */
function wordsIn(language: Language, tokens: readonly string[]): string[] | null {
  const index = INDEX[language];
  const words: string[] = [];
  for (const token of tokens) {
    const word = resolveWord(index, token);
    if (!word) return null;
    words.push(word);
  }
  return words;
}

/**
 * The list words of a typed code in one language ("Apple / RIVER-ston" → ["apple", "river", "stone"]),
 * or null when it is not `count` words of that list.
 */
export function parseWords(
  input: string,
  count: number = IDENTITY_CODE.words,
  language: Language = DEFAULT_LANGUAGE,
): string[] | null {
  const tokens = tokensOf(input);
  return tokens.length === count ? wordsIn(language, tokens) : null;
}

export type Candidate = { language: Language; words: string[] };

/**
 * What a typed code may be: at most one reading per language, each with all its words from that one
 * language's list (a word of one list never combines with a word of another). Most input has one
 * reading or none; words that several lists share ("animal", "badge") give one per such list.
 */
export function candidateCodes(input: string, count: number = IDENTITY_CODE.words): Candidate[] {
  const tokens = tokensOf(input);
  if (tokens.length !== count) return [];
  const candidates: Candidate[] = [];
  for (const language of LANGUAGES) {
    const words = wordsIn(language, tokens);
    if (words) candidates.push({ language, words });
  }
  return candidates;
}

/**
 * The one string that is hashed for a code: its list words in NFC joined by single spaces. The words
 * themselves, never their positions in a list: a French code and an English one with the same indices
 * are different codes, and words two lists spell alike are the same code in either.
 */
export function canonicalCode(words: readonly string[]): string {
  return words.map((w) => w.normalize("NFC")).join(" ");
}
