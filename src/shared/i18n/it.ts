import type { InACallTexts, LoaderTexts, WidgetTexts } from "./types";

/** Italiano (Lei; «chi chiama» for the caller). */
export const widget: WidgetTexts = {
  title: "Verifichi chi la sta chiamando",
  label: "Le tre parole comunicate da chi chiama",
  hint: "Ad esempio: fiume / pietra / nuvola",
  button: "Verifica",
  checking: "Verifica in corso…",
  verified: "Verificato: {name}",
  verifiedCompany: "Verificato: {name} di {company}",
  verifiedDomain: "Verificato: {name} ({domain})",
  verifiedCompanyDomain: "Verificato: {name} di {company} ({domain})",
  vouchedBy:
    "Questa organizzazione ha dimostrato che {domain} è il suo sito web. Se non è il sito dell'organizzazione che si aspettava, riattacchi.",
  noDomain:
    "Questa organizzazione non ha dimostrato di avere un sito web. Nel dubbio, riattacchi e richiami l'organizzazione al suo numero ufficiale.",
  notVerified:
    "Questo codice non è valido. Chi chiama potrebbe non essere chi dice di essere: non comunichi dati personali e richiami l'organizzazione al suo numero ufficiale.",
  tooMany: "Troppe verifiche dalla sua rete. Riprovi più tardi.",
  threeWords: "Inserisca esattamente tre parole.",
  unavailable: "La verifica non è disponibile in questo momento. Riprovi tra poco.",
  reportButton: "Segnala questa chiamata",
  reportHint: "Informi l'organizzazione di questa chiamata. Tutti i campi sono facoltativi, ma ne compili almeno uno.",
  send: "Invia segnalazione",
  sending: "Invio in corso…",
  cancel: "Annulla",
  sent: "Grazie. Abbiamo ricevuto la sua segnalazione.",
  failed: "Non è stato possibile inviare la segnalazione. Riprovi più tardi.",
  empty: "Compili almeno un campo.",
  reportsTooMany: "Troppe segnalazioni dalla sua rete. Riprovi più tardi.",
  callerNumber: "Il numero da cui è arrivata la chiamata",
  claimedName: "Il nome dichiarato da chi chiamava",
  note: "Che cosa le hanno chiesto",
};

export const loader: LoaderTexts = {
  loadFailed: "Impossibile caricare il modulo di verifica. Aggiorni la pagina o controlli la connessione.",
};

export const inACall: InACallTexts = {
  title: "Ha una chiamata in corso?",
  heading: "Qualcuno la sta chiamando per conto di un'organizzazione?",
  intro: "Prima di comunicare qualsiasi cosa, verifichi che sia davvero chi dice di essere.",
  steps: [
    "Chieda a chi chiama il suo codice di identità di tre parole. Lo crea in CallProof; vale un minuto e una sola volta.",
    "Scriva le tre parole nella casella di questa pagina (o nel riquadro CallProof sul sito ufficiale dell'organizzazione) e prema Verifica.",
    "Se compare «Verificato», controlli che il nome e l'organizzazione siano quelli che le ha detto chi chiama.",
    "Se il codice non è valido, o chi chiama non vuole fornirne uno, riattacchi. Richiami l'organizzazione a un numero che trova da sé, per esempio sul suo sito ufficiale o sull'estratto conto.",
  ],
  note: "Chi chiama davvero per conto di un'organizzazione non ha mai bisogno della sua password, del PIN o dei codici monouso, e non ha nulla in contrario se lei verifica.",
  widgetRegion: "Verifichi chi la sta chiamando",
  languageLabel: "Lingua",
};
