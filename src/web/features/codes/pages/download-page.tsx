import { CODES_TEXT, loaderSnippet, plainSnippet } from "@shared/codes";
import { UI_TIMING } from "@shared/constants";
import { loaderTexts } from "@shared/i18n";
import { LANGUAGES } from "@shared/languages";
import { Page } from "@web/components/ui/page";
import { CopySnippet } from "../components/copy-snippet";
import "../components/codes.css";

/**
 * /download: the two snippets that add the widget to a website, pointing at this site.
 * The route guard shows visitors who are not signed in the not-authorized text instead.
 */
export function DownloadPage() {
  const publicUrl = window.location.origin;
  return (
    <Page
      title={CODES_TEXT.downloadTitle}
      intro={
        <>
          <p>{CODES_TEXT.domainLockNote}</p>
          <p>{CODES_TEXT.languageNote}</p>
        </>
      }
    >
      <div className="snippets">
        <CopySnippet
          title={CODES_TEXT.loaderSnippetTitle}
          help={CODES_TEXT.loaderSnippetHelp}
          code={loaderSnippet(
            publicUrl,
            UI_TIMING.widgetLoadTries,
            UI_TIMING.widgetLoadDelayMs,
            Object.fromEntries(LANGUAGES.map((language) => [language, loaderTexts(language).loadFailed])),
          )}
        />
        <CopySnippet
          title={CODES_TEXT.plainSnippetTitle}
          help={CODES_TEXT.plainSnippetHelp}
          code={plainSnippet(publicUrl)}
        />
      </div>
    </Page>
  );
}
