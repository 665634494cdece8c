import type { InACallTexts, LoaderTexts, WidgetTexts } from "./types";

/** Español (usted; «la persona que llama»). */
export const widget: WidgetTexts = {
  title: "Verificar quién le llama",
  label: "Las tres palabras que le ha dado la persona que llama",
  hint: "Por ejemplo: árbol / río / piedra",
  button: "Verificar",
  checking: "Comprobando…",
  verified: "Verificado: {name}",
  verifiedCompany: "Verificado: {name}, de {company}",
  verifiedDomain: "Verificado: {name} ({domain})",
  verifiedCompanyDomain: "Verificado: {name}, de {company} ({domain})",
  vouchedBy:
    "Esta organización ha demostrado que {domain} es su sitio web. Si no es el sitio de la organización que esperaba, cuelgue.",
  noDomain:
    "Esta organización no ha demostrado tener ningún sitio web. Si tiene dudas, cuelgue y llame usted a la organización a su número oficial.",
  notVerified:
    "Este código no es válido. Es posible que la persona que llama no sea quien dice ser: no facilite datos personales y llame usted a la organización a su número oficial.",
  tooMany: "Demasiadas comprobaciones desde su red. Inténtelo de nuevo más tarde.",
  threeWords: "Escriba exactamente tres palabras.",
  unavailable: "La verificación no está disponible en este momento. Inténtelo de nuevo en unos instantes.",
  reportButton: "Informar de esta llamada",
  reportHint: "Informe a la organización de esta llamada. Todos los campos son opcionales, pero rellene al menos uno.",
  send: "Enviar aviso",
  sending: "Enviando…",
  cancel: "Cancelar",
  sent: "Gracias. Hemos recibido su aviso.",
  failed: "No se ha podido enviar el aviso. Inténtelo de nuevo más tarde.",
  empty: "Rellene al menos un campo.",
  reportsTooMany: "Demasiados avisos desde su red. Inténtelo de nuevo más tarde.",
  callerNumber: "El número desde el que le llamaron",
  claimedName: "El nombre que le dio la persona que llamaba",
  note: "Qué le pidieron",
};

export const loader: LoaderTexts = {
  loadFailed: "No se ha podido cargar el verificador. Actualice la página o compruebe su conexión.",
};

export const inACall: InACallTexts = {
  title: "¿Está en una llamada?",
  heading: "¿Le llama alguien en nombre de una organización?",
  intro: "Antes de dar ningún dato, compruebe que es quien dice ser.",
  steps: [
    "Pida a la persona que llama su código de identidad de tres palabras. Lo crea en CallProof; sirve durante un minuto y una sola vez.",
    "Escriba las tres palabras en el recuadro de esta página (o en el recuadro de CallProof del sitio web oficial de la organización) y pulse Verificar.",
    "Si aparece «Verificado», compruebe que el nombre y la organización coinciden con los que le ha dado la persona que llama.",
    "Si el código no es válido, o la persona que llama no quiere darle uno, cuelgue. Llame usted a la organización a un número que encuentre por su cuenta, por ejemplo en su sitio web oficial o en su extracto bancario.",
  ],
  note: "Quien llama de verdad en nombre de una organización nunca necesita su contraseña, su PIN ni sus códigos de un solo uso, y no le importa que usted lo compruebe.",
  widgetRegion: "Verificar quién le llama",
  languageLabel: "Idioma",
};
