import { z } from "zod";
import { CODES_TEXT, VERIFY_WORDS_MAX_LENGTH } from "./codes";
import { LANGUAGES } from "./languages";

/**
 * Request and answer schemas of the identity-code routes. Kept apart from codes.ts, which must stay
 * free of zod for the widget's size budget.
 */

/**
 * `POST /api/verify` body. Shape errors (no `words`, not a string, blank, too long) are 400 and are
 * not look-ups; any other string is a look-up, answered 200 `verified: false` unless it is a live code.
 */
export const verifyBody = z.object({
  words: z
    .string({ error: CODES_TEXT.wordsRequired })
    .max(VERIFY_WORDS_MAX_LENGTH, CODES_TEXT.wordsTooLong)
    .trim()
    .min(1, CODES_TEXT.wordsRequired),
  /** the widget's language (en, fr, es, it, pt, cs): the answer's texts are in it; anything else reads as English */
  language: z.string().max(35).optional(),
});

/** `POST /api/generate-words` (body optional): the customer's language, whose word list the code is drawn from. */
export const generateWordsBody = z
  .object({
    language: z.enum(LANGUAGES, { error: CODES_TEXT.unknownLanguage }).optional(),
    /** the caller's active call: the code belongs to it (contract, "Calls") */
    callId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
  })
  .nullish();

export const clientInfoAnswer = z.object({ fullName: z.string(), companyName: z.string(), website: z.string() });

export const verifyAnswer = z.union([
  z.object({ verified: z.literal(true), caller: clientInfoAnswer }),
  z.object({ verified: z.literal(false), message: z.string() }),
]);

export const generatedWordsAnswer = z.object({
  id: z.number(),
  words: z.array(z.string()),
  expiresAt: z.string(),
  language: z.enum(LANGUAGES),
});

export const codeStatusAnswer = z.object({
  id: z.number(),
  status: z.enum(["live", "verified", "expired"]),
  expiresAt: z.string(),
  verifiedAt: z.string().nullable(),
  site: z.string().nullable(),
});
