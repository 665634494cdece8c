import type { Language } from "./languages";

/**
 * The call-status component's texts (CONTRACT.md, "The call-status component"), in the six languages of
 * the widget. Placeholders: `{name}` the employee's first name, `{company}` the organisation's name,
 * `{time}` a 24-hour HH:MM, `{date}` a local date and time, `{n}` and `{names}` for several calls.
 * Kept free of libraries: the component carries English and fetches another language's texts, built from
 * this file into /call-status-<lang>.<hash>.json by scripts/build-call-status.ts.
 */
export type CallStatusTexts = {
  /** the component's region name */
  region: string;
  checking: string;
  unavailable: string;
  /** the same before the organisation's name is known (the server never answered) */
  unavailableNoCompany: string;
  calling: string;
  callingHint: string;
  several: string;
  notCalling: string;
  notCallingHint: string;
  lastCall: string;
  noRecentCall: string;
  report: string;
  askOutbound: string;
  outboundNo: string;
  outboundYes: string;
  outboundHint: string;
  askInbound: string;
  inboundNo: string;
  inboundYes: string;
  inboundHint: string;
  saidYes: string;
  saidNo: string;
  answerFailed: string;
  reportHint: string;
  callerNumber: string;
  note: string;
  send: string;
  cancel: string;
  reported: string;
  reportFailed: string;
};

const en: CallStatusTexts = {
  region: "Call status",
  checking: "Checking your call status…",
  unavailable:
    "We can't show your call status right now. Until we can, don't trust anyone who phones you saying they are from {company}.",
  unavailableNoCompany:
    "We can't show your call status right now. Until we can, don't trust anyone who phones you saying they are from us.",
  calling: "{name} from {company} is calling you now (since {time}).",
  callingHint:
    "If the person you are speaking to is not {name}, hang up. We never ask you to move money, read out a code or install an app.",
  several: "{n} people from {company} are on calls with you: {names}.",
  notCalling: "{company} is not calling you right now.",
  notCallingHint:
    "If someone on the phone says they are from {company}, even from a fraud or specialist team, hang up.",
  lastCall: "Our last call to you: {date}",
  noRecentCall: "We have not called you recently.",
  report: "Report this call",
  askOutbound: "Are you on the phone with {name} from {company} right now?",
  outboundNo: "No",
  outboundYes: "Yes, I'm speaking to {name}",
  outboundHint: "Only answer Yes if {name} called you. We will never ask you to press Yes for someone else.",
  askInbound: "Did you just phone {company}? {name} at {company} is speaking to someone who says they are you.",
  inboundNo: "No, I didn't phone {company}",
  inboundYes: "Yes, I phoned and I'm speaking to {name}",
  inboundHint:
    "If someone phoned you and told you to press Yes, press No and hang up: they are trying to get into your account.",
  saidYes: "Thank you. {name} can see your answer. We will never ask you to move money to keep it safe.",
  saidNo:
    "Thank you, {company} has been told. Hang up now. If you gave any details, call us on the number on your card.",
  answerFailed: "Your answer could not be sent. Please try again.",
  reportHint: "Tell {company} about this call. Both fields are optional.",
  callerNumber: "The number that called you",
  note: "What the caller asked you",
  send: "Send report",
  cancel: "Cancel",
  reported: "Thank you. {company} has received your report.",
  reportFailed: "Your report could not be sent. Please try again later.",
};

/** Français (vouvoiement). */
const fr: CallStatusTexts = {
  region: "État des appels",
  checking: "Vérification de l'état de vos appels…",
  unavailable:
    "Nous ne pouvons pas afficher l'état de vos appels pour le moment. D'ici là, ne faites confiance à personne qui vous appelle en se présentant comme {company}.",
  unavailableNoCompany:
    "Nous ne pouvons pas afficher l'état de vos appels pour le moment. D'ici là, ne faites confiance à personne qui vous appelle en disant nous représenter.",
  calling: "{name} de {company} vous appelle en ce moment (depuis {time}).",
  callingHint:
    "Si votre interlocuteur n'est pas {name}, raccrochez. Nous ne vous demandons jamais de déplacer de l'argent, de lire un code à voix haute ni d'installer une application.",
  several: "{n} personnes de {company} sont en ligne avec vous : {names}.",
  notCalling: "{company} ne vous appelle pas en ce moment.",
  notCallingHint:
    "Si quelqu'un au téléphone affirme appeler de la part de {company}, même d'un service des fraudes ou d'un service spécialisé, raccrochez.",
  lastCall: "Notre dernier appel : {date}",
  noRecentCall: "Nous ne vous avons pas appelé récemment.",
  report: "Signaler cet appel",
  askOutbound: "Êtes-vous en ce moment au téléphone avec {name} de {company} ?",
  outboundNo: "Non",
  outboundYes: "Oui, je parle avec {name}",
  outboundHint:
    "Ne répondez Oui que si {name} vous a appelé. Nous ne vous demanderons jamais d'appuyer sur Oui pour quelqu'un d'autre.",
  askInbound: "Venez-vous d'appeler {company} ? {name}, chez {company}, parle avec une personne qui affirme être vous.",
  inboundNo: "Non, je n'ai pas appelé {company}",
  inboundYes: "Oui, j'ai appelé et je parle avec {name}",
  inboundHint:
    "Si quelqu'un vous a appelé et vous a dit d'appuyer sur Oui, appuyez sur Non et raccrochez : cette personne essaie d'accéder à votre compte.",
  saidYes:
    "Merci. {name} voit votre réponse. Nous ne vous demanderons jamais de déplacer de l'argent pour le mettre en sécurité.",
  saidNo:
    "Merci, {company} a été prévenu. Raccrochez maintenant. Si vous avez donné des informations, appelez-nous au numéro figurant sur votre carte.",
  answerFailed: "Votre réponse n'a pas pu être envoyée. Veuillez réessayer.",
  reportHint: "Informez {company} de cet appel. Les deux champs sont facultatifs.",
  callerNumber: "Le numéro qui vous a appelé",
  note: "Ce que votre interlocuteur vous a demandé",
  send: "Envoyer le signalement",
  cancel: "Annuler",
  reported: "Merci. {company} a bien reçu votre signalement.",
  reportFailed: "Votre signalement n'a pas pu être envoyé. Veuillez réessayer plus tard.",
};

/** Español (usted). */
const es: CallStatusTexts = {
  region: "Estado de las llamadas",
  checking: "Comprobando el estado de sus llamadas…",
  unavailable:
    "Ahora mismo no podemos mostrar el estado de sus llamadas. Hasta que podamos, no confíe en nadie que le llame diciendo que es de {company}.",
  unavailableNoCompany:
    "Ahora mismo no podemos mostrar el estado de sus llamadas. Hasta que podamos, no confíe en nadie que le llame diciendo que llama de nuestra parte.",
  calling: "{name}, de {company}, le está llamando ahora (desde las {time}).",
  callingHint:
    "Si la persona con la que habla no es {name}, cuelgue. Nunca le pedimos que mueva dinero, que lea un código en voz alta ni que instale una aplicación.",
  several: "{n} personas de {company} están hablando con usted: {names}.",
  notCalling: "{company} no le está llamando ahora mismo.",
  notCallingHint:
    "Si alguien al teléfono dice que es de {company}, aunque diga ser del departamento de fraude o de un equipo especializado, cuelgue.",
  lastCall: "Nuestra última llamada: {date}",
  noRecentCall: "No le hemos llamado recientemente.",
  report: "Denunciar esta llamada",
  askOutbound: "¿Está hablando ahora mismo por teléfono con {name}, de {company}?",
  outboundNo: "No",
  outboundYes: "Sí, estoy hablando con {name}",
  outboundHint: "Responda Sí solo si {name} le ha llamado. Nunca le pediremos que pulse Sí por otra persona.",
  askInbound: "¿Acaba de llamar a {company}? {name}, de {company}, está hablando con alguien que dice ser usted.",
  inboundNo: "No, no he llamado a {company}",
  inboundYes: "Sí, he llamado y estoy hablando con {name}",
  inboundHint:
    "Si alguien le ha llamado y le ha dicho que pulse Sí, pulse No y cuelgue: está intentando entrar en su cuenta.",
  saidYes: "Gracias. {name} ya ve su respuesta. Nunca le pediremos que mueva dinero para protegerlo.",
  saidNo:
    "Gracias, {company} ya ha sido avisada. Cuelgue ahora. Si ha facilitado algún dato, llámenos al número que figura en su tarjeta.",
  answerFailed: "No se ha podido enviar su respuesta. Inténtelo de nuevo.",
  reportHint: "Informe a {company} sobre esta llamada. Los dos campos son opcionales.",
  callerNumber: "El número que le llamó",
  note: "Lo que le pidió la persona que llamó",
  send: "Enviar denuncia",
  cancel: "Cancelar",
  reported: "Gracias. {company} ha recibido su denuncia.",
  reportFailed: "No se ha podido enviar su denuncia. Inténtelo de nuevo más tarde.",
};

/** Italiano (Lei). */
const it: CallStatusTexts = {
  region: "Stato delle chiamate",
  checking: "Verifica dello stato delle chiamate…",
  unavailable:
    "Al momento non possiamo mostrare lo stato delle Sue chiamate. Finché non sarà possibile, non si fidi di chi La chiama dicendo di essere di {company}.",
  unavailableNoCompany:
    "Al momento non possiamo mostrare lo stato delle Sue chiamate. Finché non sarà possibile, non si fidi di chi La chiama dicendo di chiamare per conto nostro.",
  calling: "{name} di {company} La sta chiamando ora (dalle {time}).",
  callingHint:
    "Se la persona con cui sta parlando non è {name}, riattacchi. Non Le chiediamo mai di spostare denaro, di leggere ad alta voce un codice o di installare un'app.",
  several: "{n} persone di {company} sono al telefono con Lei: {names}.",
  notCalling: "{company} non La sta chiamando in questo momento.",
  notCallingHint:
    "Se qualcuno al telefono dice di essere di {company}, anche dell'ufficio antifrode o di un reparto specializzato, riattacchi.",
  lastCall: "La nostra ultima chiamata: {date}",
  noRecentCall: "Non L'abbiamo chiamata di recente.",
  report: "Segnala questa chiamata",
  askOutbound: "È al telefono con {name} di {company} in questo momento?",
  outboundNo: "No",
  outboundYes: "Sì, sto parlando con {name}",
  outboundHint:
    "Risponda Sì solo se {name} L'ha chiamata. Non Le chiederemo mai di premere Sì per conto di qualcun altro.",
  askInbound: "Ha appena telefonato a {company}? {name} di {company} sta parlando con qualcuno che dice di essere Lei.",
  inboundNo: "No, non ho telefonato a {company}",
  inboundYes: "Sì, ho telefonato e sto parlando con {name}",
  inboundHint:
    "Se qualcuno L'ha chiamata dicendoLe di premere Sì, prema No e riattacchi: sta cercando di entrare nel Suo conto.",
  saidYes: "Grazie. {name} vede la Sua risposta. Non Le chiederemo mai di spostare denaro per metterlo al sicuro.",
  saidNo:
    "Grazie, {company} è stata avvisata. Riattacchi subito. Se ha fornito dei dati, ci chiami al numero riportato sulla Sua carta.",
  answerFailed: "Non è stato possibile inviare la Sua risposta. Riprovi.",
  reportHint: "Informi {company} di questa chiamata. Entrambi i campi sono facoltativi.",
  callerNumber: "Il numero che L'ha chiamata",
  note: "Che cosa Le ha chiesto chi ha chiamato",
  send: "Invia segnalazione",
  cancel: "Annulla",
  reported: "Grazie. {company} ha ricevuto la Sua segnalazione.",
  reportFailed: "Non è stato possibile inviare la Sua segnalazione. Riprovi più tardi.",
};

/** Português (você, neutral between Portugal and Brazil where it can be). */
const pt: CallStatusTexts = {
  region: "Estado das chamadas",
  checking: "A verificar o estado das suas chamadas…",
  unavailable:
    "Neste momento não conseguimos mostrar o estado das suas chamadas. Até conseguirmos, não confie em ninguém que lhe telefone a dizer que é da {company}.",
  unavailableNoCompany:
    "Neste momento não conseguimos mostrar o estado das suas chamadas. Até conseguirmos, não confie em ninguém que lhe telefone a dizer que fala em nosso nome.",
  calling: "{name}, da {company}, está a ligar-lhe agora (desde as {time}).",
  callingHint:
    "Se a pessoa com quem está a falar não for {name}, desligue. Nunca lhe pedimos que transfira dinheiro, que leia um código em voz alta nem que instale uma aplicação.",
  several: "{n} pessoas da {company} estão em chamada consigo: {names}.",
  notCalling: "A {company} não lhe está a ligar neste momento.",
  notCallingHint:
    "Se alguém ao telefone disser que é da {company}, mesmo de uma equipa de fraude ou especializada, desligue.",
  lastCall: "A nossa última chamada: {date}",
  noRecentCall: "Não lhe ligámos recentemente.",
  report: "Denunciar esta chamada",
  askOutbound: "Está neste momento ao telefone com {name}, da {company}?",
  outboundNo: "Não",
  outboundYes: "Sim, estou a falar com {name}",
  outboundHint: "Só responda Sim se {name} lhe tiver ligado. Nunca lhe pediremos que carregue em Sim por outra pessoa.",
  askInbound: "Acabou de ligar para a {company}? {name}, da {company}, está a falar com alguém que diz ser você.",
  inboundNo: "Não, não liguei para a {company}",
  inboundYes: "Sim, liguei e estou a falar com {name}",
  inboundHint:
    "Se alguém lhe ligou e lhe disse para carregar em Sim, carregue em Não e desligue: estão a tentar entrar na sua conta.",
  saidYes: "Obrigado. {name} já vê a sua resposta. Nunca lhe pediremos que transfira dinheiro para o proteger.",
  saidNo:
    "Obrigado, a {company} foi avisada. Desligue agora. Se deu algum dado, ligue-nos para o número que está no seu cartão.",
  answerFailed: "Não foi possível enviar a sua resposta. Tente novamente.",
  reportHint: "Informe a {company} sobre esta chamada. Os dois campos são opcionais.",
  callerNumber: "O número que lhe ligou",
  note: "O que lhe pediu quem ligou",
  send: "Enviar denúncia",
  cancel: "Cancelar",
  reported: "Obrigado. A {company} recebeu a sua denúncia.",
  reportFailed: "Não foi possível enviar a sua denúncia. Tente novamente mais tarde.",
};

/** Čeština (vykání). */
const cs: CallStatusTexts = {
  region: "Stav hovorů",
  checking: "Zjišťujeme stav vašich hovorů…",
  unavailable:
    "Stav vašich hovorů teď nemůžeme zobrazit. Dokud to nepůjde, nevěřte nikomu, kdo vám volá a tvrdí, že je z {company}.",
  unavailableNoCompany:
    "Stav vašich hovorů teď nemůžeme zobrazit. Dokud to nepůjde, nevěřte nikomu, kdo vám volá a tvrdí, že volá naším jménem.",
  calling: "{name} z {company} vám právě volá (od {time}).",
  callingHint:
    "Pokud osoba, se kterou mluvíte, není {name}, zavěste. Nikdy vás nežádáme o převod peněz, přečtení kódu ani instalaci aplikace.",
  several: "Z {company} s vámi právě telefonuje více lidí ({n}): {names}.",
  notCalling: "{company} vám teď nevolá.",
  notCallingHint:
    "Pokud vám někdo do telefonu tvrdí, že volá z {company}, i kdyby to bylo z oddělení pro podvody nebo jiného specializovaného týmu, zavěste.",
  lastCall: "Náš poslední hovor s vámi: {date}",
  noRecentCall: "V poslední době jsme vám nevolali.",
  report: "Nahlásit tento hovor",
  askOutbound: "Telefonujete právě teď s osobou {name} z {company}?",
  outboundNo: "Ne",
  outboundYes: "Ano, mluvím s osobou {name}",
  outboundHint:
    "Odpovězte Ano, jen pokud vám volal(a) {name}. Nikdy vás nebudeme žádat, abyste stiskli Ano za někoho jiného.",
  askInbound: "Volali jste právě do {company}? {name} z {company} mluví s někým, kdo tvrdí, že jste to vy.",
  inboundNo: "Ne, do {company} jsem nevolal(a)",
  inboundYes: "Ano, volal(a) jsem a mluvím s osobou {name}",
  inboundHint:
    "Pokud vám někdo zavolal a řekl vám, ať stisknete Ano, stiskněte Ne a zavěste: snaží se dostat do vašeho účtu.",
  saidYes: "Děkujeme. {name} vaši odpověď vidí. Nikdy vás nebudeme žádat, abyste peníze kvůli jejich ochraně převedli.",
  saidNo:
    "Děkujeme, {company} o tom ví. Hned zavěste. Pokud jste sdělili nějaké údaje, zavolejte nám na číslo uvedené na vaší kartě.",
  answerFailed: "Vaši odpověď se nepodařilo odeslat. Zkuste to prosím znovu.",
  reportHint: "Dejte {company} o tomto hovoru vědět. Obě pole jsou nepovinná.",
  callerNumber: "Číslo, ze kterého vám volali",
  note: "Co po vás volající chtěl",
  send: "Odeslat hlášení",
  cancel: "Zrušit",
  reported: "Děkujeme. {company} vaše hlášení obdržela.",
  reportFailed: "Hlášení se nepodařilo odeslat. Zkuste to prosím později.",
};

/** English first: the component carries it; the others are fetched when needed. */
export const CALL_STATUS_TEXTS: Record<Language, CallStatusTexts> = { en, fr, es, it, pt, cs };
export const ENGLISH_CALL_STATUS_TEXTS = en;
