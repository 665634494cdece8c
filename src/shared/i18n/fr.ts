import type { InACallTexts, LoaderTexts, WidgetTexts } from "./types";

/** Français (vouvoiement; « interlocuteur » for the caller, who may be a man or a woman). */
export const widget: WidgetTexts = {
  title: "Vérifier qui vous appelle",
  label: "Les trois mots donnés par votre interlocuteur",
  hint: "Par exemple : abeille / rivière / pierre",
  button: "Vérifier",
  checking: "Vérification…",
  verified: "Vérifié : {name}",
  verifiedCompany: "Vérifié : {name} — {company}",
  verifiedDomain: "Vérifié : {name} ({domain})",
  verifiedCompanyDomain: "Vérifié : {name} — {company} ({domain})",
  vouchedBy:
    "Cette organisation a prouvé que {domain} est son site web. Si ce n'est pas le site de l'organisation que vous attendiez, raccrochez.",
  noDomain:
    "Cette organisation n'a prouvé aucun site web. En cas de doute, raccrochez et rappelez l'organisation à son numéro officiel.",
  notVerified:
    "Ce code n'est pas valable. Votre interlocuteur n'est peut-être pas celui qu'il prétend être : ne donnez aucune information personnelle et rappelez l'organisation à son numéro officiel.",
  tooMany: "Trop de vérifications depuis votre réseau. Veuillez réessayer plus tard.",
  threeWords: "Saisissez exactement trois mots.",
  unavailable: "La vérification est indisponible pour le moment. Veuillez réessayer dans un instant.",
  reportButton: "Signaler cet appel",
  reportHint: "Informez l'organisation de cet appel. Tous les champs sont facultatifs, mais remplissez-en au moins un.",
  send: "Envoyer le signalement",
  sending: "Envoi en cours…",
  cancel: "Annuler",
  sent: "Merci. Votre signalement a bien été reçu.",
  failed: "Le signalement n'a pas pu être envoyé. Veuillez réessayer plus tard.",
  empty: "Remplissez au moins un champ.",
  reportsTooMany: "Trop de signalements depuis votre réseau. Veuillez réessayer plus tard.",
  callerNumber: "Le numéro qui vous a appelé",
  claimedName: "Le nom donné par votre interlocuteur",
  note: "Ce qu'on vous a demandé",
};

export const loader: LoaderTexts = {
  loadFailed: "Impossible de charger le module de vérification. Actualisez la page ou vérifiez votre connexion réseau.",
};

export const inACall: InACallTexts = {
  title: "Un appel en cours ?",
  heading: "Quelqu'un vous appelle au nom d'une organisation ?",
  intro: "Avant de communiquer quoi que ce soit, vérifiez que cette personne est bien celle qu'elle prétend être.",
  steps: [
    "Demandez à votre interlocuteur son code d'identité de trois mots. Il le crée dans CallProof ; le code n'est valable qu'une minute, et une seule fois.",
    "Saisissez les trois mots dans le champ de cette page (ou dans le module CallProof du site officiel de l'organisation), puis appuyez sur Vérifier.",
    "Si la réponse est « Vérifié », contrôlez que le nom et l'organisation sont bien ceux que votre interlocuteur vous a donnés.",
    "Si le code n'est pas valable, ou si votre interlocuteur refuse d'en donner un, raccrochez. Rappelez l'organisation à un numéro que vous avez trouvé vous-même, par exemple sur son site officiel ou sur votre relevé de compte.",
  ],
  note: "Une personne qui vous appelle vraiment de la part d'une organisation n'a jamais besoin de votre mot de passe, de votre code PIN ni de vos codes à usage unique, et ne verra aucun inconvénient à ce que vous vérifiiez.",
  widgetRegion: "Vérifier qui vous appelle",
  languageLabel: "Langue",
};
