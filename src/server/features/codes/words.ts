import { randomInt } from "node:crypto";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { IDENTITY_CODE } from "@shared/constants";

/**
 * The BIP39 English list: 2048 distinct common words of 3-8 lower-case letters whose first four
 * letters are unique, so a word may be typed by those four letters alone. 2048³ ≈ 8.6 billion codes.
 */
export const WORDS: readonly string[] = wordlist;

const BY_WORD = new Set(WORDS);
/** first four letters → word (only words of 4+ letters; shorter ones are matched whole) */
const BY_PREFIX = new Map(WORDS.filter((w) => w.length >= 4).map((w) => [w.slice(0, 4), w]));

/** Three words drawn uniformly and independently with the CSPRNG (randomInt rejects, so no modulo bias). */
export function drawWords(count: number = IDENTITY_CODE.words): string[] {
  return Array.from({ length: count }, () => WORDS[randomInt(WORDS.length)] as string);
}

/** The separators CONTRACT.md allows between words: white space, `/`, `-`, `,` and `.` (any run of them). */
const SEPARATORS = /[\s/,.-]+/u;

/** The list word a typed token stands for: the word itself, or 4+ leading letters of exactly one word. */
function resolveWord(token: string): string | undefined {
  if (BY_WORD.has(token)) return token;
  if (token.length < 4) return undefined;
  const word = BY_PREFIX.get(token.slice(0, 4));
  return word?.startsWith(token) ? word : undefined;
}

/**
 * The canonical words of a typed code ("Apple / RIVER-ston" → ["apple", "river", "stone"]),
 * or null when it is not three words of the list.
 */
export function parseWords(input: string, count: number = IDENTITY_CODE.words): string[] | null {
  const tokens = input.toLowerCase().split(SEPARATORS).filter(Boolean);
  if (tokens.length !== count) return null;
  const words: string[] = [];
  for (const token of tokens) {
    const word = resolveWord(token);
    if (!word) return null;
    words.push(word);
  }
  return words;
}

/** The one string that is hashed for a code: its canonical words joined by single spaces. */
export function canonicalCode(words: readonly string[]): string {
  return words.join(" ");
}
