/**
 * The customer's languages (CONTRACT.md "Code languages and the customer's language"): the BIP39 word
 * lists a code can be drawn from, and the languages the widget and /in-a-call speak. English first, the
 * default. Kept free of libraries: the widget imports it.
 */
export const LANGUAGES = ["en", "fr", "es", "it", "pt", "cs"] as const;
export type Language = (typeof LANGUAGES)[number];

export const DEFAULT_LANGUAGE: Language = "en";

/** Each language named in itself, as a select offers them. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  en: "English",
  fr: "Français",
  es: "Español",
  it: "Italiano",
  pt: "Português",
  cs: "Čeština",
};

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The first of `tags` (BCP 47 language tags such as "fr-CA", "pt-BR", "EN") that is one of ours, by its
 * primary subtag; undefined when none is.
 */
export function pickLanguage(tags: readonly (string | null | undefined)[]): Language | undefined {
  for (const tag of tags) {
    const primary = (tag ?? "").trim().toLowerCase().split(/[-_]/)[0];
    if (isLanguage(primary)) return primary;
  }
  return undefined;
}

/**
 * The languages of an `Accept-Language` header, best first ("fr-CH, fr;q=0.9, en;q=0.8" → fr-CH, fr, en);
 * entries with q=0 are left out. Bounded: a header longer than 500 characters is read up to there.
 */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .slice(0, 500)
    .split(",")
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((e) => e.tag && e.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((e) => e.tag);
}

/**
 * The language a widget call asked for: its `language` field when it is one of ours, else the best of its
 * `Accept-Language` that is, else English.
 */
export function requestLanguage(field: unknown, acceptLanguage: string | undefined): Language {
  if (isLanguage(field)) return field;
  return pickLanguage(acceptedLanguages(acceptLanguage)) ?? DEFAULT_LANGUAGE;
}
