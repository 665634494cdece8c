import type { InACallTexts, LoaderTexts, WidgetTexts } from "./types";

/** Čeština (vykání). */
export const widget: WidgetTexts = {
  title: "Ověřte, kdo vám volá",
  label: "Tři slova, která vám volající sdělil",
  hint: "Například: jablko / strom / kniha",
  button: "Ověřit",
  checking: "Ověřuji…",
  verified: "Ověřeno: {name}",
  verifiedCompany: "Ověřeno: {name} — {company}",
  verifiedDomain: "Ověřeno: {name} ({domain})",
  verifiedCompanyDomain: "Ověřeno: {name} — {company} ({domain})",
  vouchedBy:
    "Tato organizace prokázala, že jí patří web {domain}. Pokud to není web organizace, kterou jste čekali, hovor ukončete.",
  noDomain:
    "Tato organizace neprokázala žádný web. Máte-li pochybnosti, hovor ukončete a zavolejte organizaci na její oficiální číslo.",
  notVerified:
    "Tento kód není platný. Volající nemusí být tím, za koho se vydává: nesdělujte žádné osobní údaje a zavolejte organizaci zpět na její oficiální číslo.",
  tooMany: "Příliš mnoho ověření z vaší sítě. Zkuste to prosím později.",
  threeWords: "Zadejte přesně tři slova.",
  unavailable: "Ověření teď není k dispozici. Zkuste to prosím za chvíli.",
  reportButton: "Nahlásit tento hovor",
  reportHint: "Dejte organizaci o hovoru vědět. Všechna pole jsou nepovinná, vyplňte ale alespoň jedno.",
  send: "Odeslat hlášení",
  sending: "Odesílám…",
  cancel: "Zrušit",
  sent: "Děkujeme. Vaše hlášení jsme přijali.",
  failed: "Hlášení se nepodařilo odeslat. Zkuste to prosím později.",
  empty: "Vyplňte alespoň jedno pole.",
  reportsTooMany: "Příliš mnoho hlášení z vaší sítě. Zkuste to prosím později.",
  callerNumber: "Číslo, ze kterého vám volali",
  claimedName: "Jméno, kterým se volající představil",
  note: "Co po vás chtěli",
};

export const loader: LoaderTexts = {
  loadFailed: "Ověřovací modul se nepodařilo načíst. Obnovte stránku nebo zkontrolujte připojení k internetu.",
};

export const inACall: InACallTexts = {
  title: "Právě telefonujete?",
  heading: "Volá vám někdo jménem nějaké organizace?",
  intro: "Než cokoli sdělíte, ověřte si, že je to opravdu ten, za koho se vydává.",
  steps: [
    "Požádejte volajícího o jeho identifikační kód ze tří slov. Vytvoří si ho v CallProof; platí jednu minutu a jen jednou.",
    "Zadejte tři slova do pole na této stránce (nebo do pole CallProof na oficiálním webu organizace) a stiskněte Ověřit.",
    "Pokud se zobrazí „Ověřeno“, zkontrolujte, že jméno a organizace odpovídají tomu, co vám volající řekl.",
    "Pokud kód není platný nebo vám ho volající nechce sdělit, hovor ukončete. Zavolejte organizaci zpět na číslo, které si sami najdete, například na jejím oficiálním webu nebo ve výpisu z účtu.",
  ],
  note: "Skutečný volající nikdy nepotřebuje vaše heslo, PIN ani jednorázové kódy a nevadí mu, že si ho ověřujete.",
  widgetRegion: "Ověřte, kdo vám volá",
  languageLabel: "Jazyk",
};
