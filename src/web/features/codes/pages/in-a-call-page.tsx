import { loadCallProofWidget, WIDGET_DEFAULT_TARGET_ID } from "@shared/codes";
import { UI_TIMING } from "@shared/constants";
import * as english from "@shared/i18n/en";
import type { Catalogue } from "@shared/i18n/types";
import { DEFAULT_LANGUAGE, LANGUAGE_NAMES, LANGUAGES, type Language, pickLanguage } from "@shared/languages";
import { paths } from "@shared/paths";
import { Page } from "@web/components/ui/page";
import { useApi } from "@web/lib/use-api";
import { useEffect } from "react";
import { Link, useSearchParams } from "react-router";
import "../components/codes.css";

/** The other languages' texts load only when asked for (English is in the page). */
const OTHER_LANGUAGES: Record<Exclude<Language, "en">, () => Promise<Catalogue>> = {
  fr: () => import("@shared/i18n/fr"),
  es: () => import("@shared/i18n/es"),
  it: () => import("@shared/i18n/it"),
  pt: () => import("@shared/i18n/pt"),
  cs: () => import("@shared/i18n/cs"),
};

/**
 * The asked language's catalogue once it is there (English meanwhile, and if it cannot load); `settled`
 * once the asked language is shown or has failed, so that the widget loads once, in the right language.
 */
function useCatalogue(asked: Language): { language: Language; catalogue: Catalogue; settled: boolean } {
  const { data } = useApi(
    async () => {
      try {
        return { asked, language: asked, catalogue: asked === "en" ? english : await OTHER_LANGUAGES[asked]() };
      } catch {
        return { asked, language: DEFAULT_LANGUAGE, catalogue: english };
      }
    },
    [asked],
    { what: "page's texts" },
  );
  const shown = data ?? { asked: DEFAULT_LANGUAGE, language: DEFAULT_LANGUAGE, catalogue: english };
  return { language: shown.language, catalogue: shown.catalogue, settled: shown.asked === asked };
}

/**
 * /in-a-call: what to do when someone calls, and the verification widget itself, in the customer's
 * language (`?lang=fr`, or the switch at the top; English otherwise). The page sets `<html lang>` while it
 * shows, and the widget, which follows it, is loaded again when the language changes.
 */
export function InACallPage() {
  const [params] = useSearchParams();
  const { language, catalogue, settled } = useCatalogue(pickLanguage([params.get("lang")]) ?? DEFAULT_LANGUAGE);
  const texts = catalogue.inACall;
  const failureText = catalogue.loader.loadFailed;

  useEffect(() => {
    if (language === DEFAULT_LANGUAGE) return;
    const root = document.documentElement;
    const before = root.lang;
    root.lang = language;
    return () => {
      root.lang = before;
    };
  }, [language]);

  useEffect(() => {
    if (!settled) return;
    // The app's CSP allows scripts from this site only: the same loader as the /download snippet injects /widget.js.
    const stop = loadCallProofWidget({
      src: `${window.location.origin}/widget.js`,
      target: `#${WIDGET_DEFAULT_TARGET_ID}`,
      tries: UI_TIMING.widgetLoadTries,
      delayMs: UI_TIMING.widgetLoadDelayMs,
      failureText,
      lang: language,
    });
    return () => {
      stop();
      // the widget of the previous language goes with it
      document.getElementById(WIDGET_DEFAULT_TARGET_ID)?.replaceChildren();
    };
  }, [settled, language, failureText]);

  return (
    <div lang={language}>
      <Page title={texts.title}>
        <nav aria-label={texts.languageLabel} className="language-switch">
          <ul>
            {LANGUAGES.map((l) => (
              <li key={l}>
                <Link
                  to={`${paths.inACall}?lang=${l}`}
                  lang={l}
                  hrefLang={l}
                  aria-current={l === language ? "page" : undefined}
                  replace
                >
                  {LANGUAGE_NAMES[l]}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="in-a-call">
          <section aria-labelledby="in-a-call-steps">
            <h2 id="in-a-call-steps">{texts.heading}</h2>
            <p>{texts.intro}</p>
            <ol>
              {texts.steps.map((step) => (
                <li key={step}>{step}</li>
              ))}
            </ol>
            <p className="muted">{texts.note}</p>
          </section>
          <section aria-label={texts.widgetRegion} className="widget-slot">
            <div id={WIDGET_DEFAULT_TARGET_ID} />
          </section>
        </div>
      </Page>
    </div>
  );
}
