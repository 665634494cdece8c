import type { InACallTexts, LoaderTexts, WidgetTexts } from "./types";

/** Português (europeu, tratamento formal; «quem liga» for the caller). */
export const widget: WidgetTexts = {
  title: "Verificar quem está a ligar",
  label: "As três palavras indicadas por quem liga",
  hint: "Por exemplo: pedra / montanha / jardim",
  button: "Verificar",
  checking: "A verificar…",
  verified: "Verificado: {name}",
  verifiedCompany: "Verificado: {name} — {company}",
  verifiedDomain: "Verificado: {name} ({domain})",
  verifiedCompanyDomain: "Verificado: {name} — {company} ({domain})",
  vouchedBy:
    "Esta organização provou que {domain} é o seu site. Se não for o site da organização que esperava, desligue.",
  noDomain:
    "Esta organização não provou ter um site. Em caso de dúvida, desligue e ligue para a organização pelo número oficial.",
  notVerified:
    "Este código não é válido. Quem liga pode não ser quem diz ser: não partilhe dados pessoais e ligue para a organização pelo número oficial.",
  tooMany: "Demasiadas verificações a partir da sua rede. Tente novamente mais tarde.",
  threeWords: "Escreva exatamente três palavras.",
  unavailable: "A verificação não está disponível neste momento. Tente novamente dentro de instantes.",
  reportButton: "Comunicar esta chamada",
  reportHint: "Informe a organização sobre esta chamada. Todos os campos são opcionais, mas preencha pelo menos um.",
  send: "Enviar",
  sending: "A enviar…",
  cancel: "Cancelar",
  sent: "Obrigado. Recebemos a sua comunicação.",
  failed: "Não foi possível enviar a comunicação. Tente novamente mais tarde.",
  empty: "Preencha pelo menos um campo.",
  reportsTooMany: "Demasiadas comunicações a partir da sua rede. Tente novamente mais tarde.",
  callerNumber: "O número que lhe ligou",
  claimedName: "O nome que a pessoa lhe deu",
  note: "O que lhe pediram",
};

export const loader: LoaderTexts = {
  loadFailed: "Não foi possível carregar o verificador. Atualize a página ou verifique a sua ligação à internet.",
};

export const inACall: InACallTexts = {
  title: "Está numa chamada?",
  heading: "Alguém lhe está a ligar em nome de uma organização?",
  intro: "Antes de partilhar qualquer informação, confirme que a pessoa é quem diz ser.",
  steps: [
    "Peça a quem liga o código de identidade de três palavras. É criado no CallProof; funciona durante um minuto e uma única vez.",
    "Escreva as três palavras na caixa desta página (ou na caixa do CallProof no site oficial da organização) e carregue em Verificar.",
    "Se aparecer «Verificado», confirme que o nome e a organização são os que a pessoa lhe deu.",
    "Se o código não for válido, ou se a pessoa não lho quiser dar, desligue. Ligue para a organização através de um número que encontre por si, por exemplo no site oficial ou no seu extrato.",
  ],
  note: "Quem liga de verdade nunca precisa da sua palavra-passe, do seu PIN nem de códigos de utilização única, e não se importa que confirme.",
  widgetRegion: "Verificar quem está a ligar",
  languageLabel: "Idioma",
};
