import { z } from "zod";

/** An answer that is only a text for the user. */
export const messageAnswer = z.object({ message: z.string() });

/** Every error answer: a text for people and a stable machine code (see error-codes.ts). */
export const errorAnswer = z.object({ message: z.string(), code: z.string() });
