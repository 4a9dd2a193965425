/**
 * The hosted page's own words (buttons, hints, messages) in a few languages. The form's questions
 * come from the form and its translations; these strings only frame them. A language without an
 * entry here uses English for the frame (the questions stay in the chosen language).
 */
import { chooseLanguage } from '../core/forms/public-form';

export interface PageStrings {
  required: string;
  submit: string;
  chooseOne: string;
  chooseAny: string;
  npsLow: string;
  npsHigh: string;
  ratingLow: string;
  ratingHigh: string;
  fixErrors: string;
  answerRequired: string;
  notANumber: string;
  honeypot: string;
  thanksTitle: string;
  thanksText: string;
  notFoundTitle: string;
  notFoundText: string;
  linkInvalidTitle: string;
  linkInvalidText: string;
  linkExpiredTitle: string;
  linkExpiredText: string;
  linkUsedTitle: string;
  linkUsedText: string;
  tooManyTitle: string;
  tooManyText: string;
  errorTitle: string;
  errorText: string;
  tooLargeTitle: string;
  tooLargeText: string;
  unreadableText: string;
  cannotStore: string;
  pageExpired: string;
}

const en: PageStrings = {
  required: 'required',
  submit: 'Send',
  chooseOne: 'Choose one.',
  chooseAny: 'Choose any that apply.',
  npsLow: '0 = not at all likely',
  npsHigh: '10 = extremely likely',
  ratingLow: 'lowest',
  ratingHigh: 'highest',
  fixErrors: 'Some answers need another look. The messages are next to the questions.',
  answerRequired: 'Please answer this question.',
  notANumber: 'Please enter a number.',
  honeypot: 'Leave this field empty',
  thanksTitle: 'Thank you!',
  thanksText: 'Your answers have been received.',
  notFoundTitle: 'Form not found',
  notFoundText: 'There is no form at this address. Check the link you were given.',
  linkInvalidTitle: 'This link does not work',
  linkInvalidText: 'The link is incomplete or was changed. Open it again from your email, or ask the sender for a new one.',
  linkExpiredTitle: 'This link has expired',
  linkExpiredText: 'The link you followed is no longer valid. Ask the sender for a new one.',
  linkUsedTitle: 'This link has already been used',
  linkUsedText: 'A response was already sent with this link, and it takes no more. Thank you for your answer!',
  tooManyTitle: 'Too many submissions',
  tooManyText: 'Too many answers were sent from your address in the last minute. Please wait a minute and try again.',
  errorTitle: 'Something went wrong',
  errorText: 'Your answers could not be saved. Please try again in a moment.',
  tooLargeTitle: 'Too much text',
  tooLargeText: 'The answers are longer than this form accepts. Please shorten them and send again.',
  unreadableText: 'The answers could not be read. Please go back to the form and send it again.',
  cannotStore: 'This answer holds a character that cannot be stored (a NUL character). Please remove it.',
  pageExpired: 'This page was open for more than a week, so your answers were not sent yet. Check them and send again.',
};

const de: PageStrings = {
  required: 'Pflichtfeld',
  submit: 'Senden',
  chooseOne: 'Bitte eine Antwort wählen.',
  chooseAny: 'Alle zutreffenden wählen.',
  npsLow: '0 = gar nicht wahrscheinlich',
  npsHigh: '10 = äußerst wahrscheinlich',
  ratingLow: 'am niedrigsten',
  ratingHigh: 'am höchsten',
  fixErrors: 'Einige Antworten müssen noch einmal geprüft werden. Die Hinweise stehen bei den Fragen.',
  answerRequired: 'Bitte beantworten Sie diese Frage.',
  notANumber: 'Bitte eine Zahl eingeben.',
  honeypot: 'Dieses Feld bitte leer lassen',
  thanksTitle: 'Vielen Dank!',
  thanksText: 'Ihre Antworten sind angekommen.',
  notFoundTitle: 'Formular nicht gefunden',
  notFoundText: 'Unter dieser Adresse gibt es kein Formular. Bitte prüfen Sie den Link.',
  linkInvalidTitle: 'Dieser Link funktioniert nicht',
  linkInvalidText: 'Der Link ist unvollständig oder wurde verändert. Öffnen Sie ihn erneut aus Ihrer E-Mail oder bitten Sie um einen neuen.',
  linkExpiredTitle: 'Dieser Link ist abgelaufen',
  linkExpiredText: 'Der Link ist nicht mehr gültig. Bitten Sie den Absender um einen neuen.',
  linkUsedTitle: 'Dieser Link wurde bereits verwendet',
  linkUsedText: 'Mit diesem Link wurde schon eine Antwort gesendet, weitere nimmt er nicht an. Danke für Ihre Antwort!',
  tooManyTitle: 'Zu viele Antworten',
  tooManyText: 'Von Ihrer Adresse wurden in der letzten Minute zu viele Antworten gesendet. Bitte warten Sie eine Minute.',
  errorTitle: 'Etwas ist schiefgelaufen',
  errorText: 'Ihre Antworten konnten nicht gespeichert werden. Bitte versuchen Sie es gleich noch einmal.',
  tooLargeTitle: 'Zu viel Text',
  tooLargeText: 'Die Antworten sind länger, als dieses Formular annimmt. Bitte kürzen Sie sie und senden Sie erneut.',
  unreadableText: 'Die Antworten konnten nicht gelesen werden. Bitte kehren Sie zum Formular zurück und senden Sie es erneut.',
  cannotStore: 'Diese Antwort enthält ein Zeichen, das nicht gespeichert werden kann (NUL). Bitte entfernen Sie es.',
  pageExpired: 'Diese Seite war länger als eine Woche geöffnet, daher wurden Ihre Antworten noch nicht gesendet. Prüfen Sie sie und senden Sie erneut.',
};

const fr: PageStrings = {
  required: 'obligatoire',
  submit: 'Envoyer',
  chooseOne: 'Choisissez une réponse.',
  chooseAny: 'Choisissez toutes les réponses qui conviennent.',
  npsLow: '0 = pas du tout probable',
  npsHigh: '10 = très probable',
  ratingLow: 'le plus bas',
  ratingHigh: 'le plus haut',
  fixErrors: 'Certaines réponses sont à revoir. Les messages sont à côté des questions.',
  answerRequired: 'Veuillez répondre à cette question.',
  notANumber: 'Veuillez saisir un nombre.',
  honeypot: 'Laissez ce champ vide',
  thanksTitle: 'Merci !',
  thanksText: 'Vos réponses ont bien été reçues.',
  notFoundTitle: 'Formulaire introuvable',
  notFoundText: "Il n'y a pas de formulaire à cette adresse. Vérifiez le lien reçu.",
  linkInvalidTitle: 'Ce lien ne fonctionne pas',
  linkInvalidText: 'Le lien est incomplet ou a été modifié. Rouvrez-le depuis votre e-mail ou demandez-en un nouveau.',
  linkExpiredTitle: 'Ce lien a expiré',
  linkExpiredText: "Le lien n'est plus valable. Demandez-en un nouveau à l'expéditeur.",
  linkUsedTitle: 'Ce lien a déjà été utilisé',
  linkUsedText: "Une réponse a déjà été envoyée avec ce lien, et il n'en accepte pas d'autre. Merci pour votre réponse !",
  tooManyTitle: 'Trop de réponses',
  tooManyText: 'Trop de réponses ont été envoyées depuis votre adresse. Réessayez dans une minute.',
  errorTitle: "Une erreur s'est produite",
  errorText: "Vos réponses n'ont pas pu être enregistrées. Réessayez dans un instant.",
  tooLargeTitle: 'Trop de texte',
  tooLargeText: 'Les réponses sont plus longues que ce que ce formulaire accepte. Raccourcissez-les et renvoyez-les.',
  unreadableText: "Les réponses n'ont pas pu être lues. Revenez au formulaire et renvoyez-le.",
  cannotStore: 'Cette réponse contient un caractère impossible à enregistrer (NUL). Supprimez-le.',
  pageExpired: 'Cette page est restée ouverte plus d’une semaine : vos réponses n’ont pas encore été envoyées. Vérifiez-les et envoyez de nouveau.',
};

const es: PageStrings = {
  required: 'obligatorio',
  submit: 'Enviar',
  chooseOne: 'Elija una respuesta.',
  chooseAny: 'Elija todas las que correspondan.',
  npsLow: '0 = nada probable',
  npsHigh: '10 = muy probable',
  ratingLow: 'más bajo',
  ratingHigh: 'más alto',
  fixErrors: 'Algunas respuestas necesitan revisión. Los mensajes están junto a las preguntas.',
  answerRequired: 'Responda esta pregunta, por favor.',
  notANumber: 'Introduzca un número.',
  honeypot: 'Deje este campo vacío',
  thanksTitle: '¡Gracias!',
  thanksText: 'Hemos recibido sus respuestas.',
  notFoundTitle: 'Formulario no encontrado',
  notFoundText: 'No hay ningún formulario en esta dirección. Compruebe el enlace.',
  linkInvalidTitle: 'Este enlace no funciona',
  linkInvalidText: 'El enlace está incompleto o fue modificado. Ábralo de nuevo desde su correo o pida uno nuevo.',
  linkExpiredTitle: 'Este enlace ha caducado',
  linkExpiredText: 'El enlace ya no es válido. Pida uno nuevo al remitente.',
  linkUsedTitle: 'Este enlace ya se ha utilizado',
  linkUsedText: 'Ya se envió una respuesta con este enlace y no admite más. ¡Gracias por su respuesta!',
  tooManyTitle: 'Demasiados envíos',
  tooManyText: 'Se enviaron demasiadas respuestas desde su dirección. Inténtelo de nuevo en un minuto.',
  errorTitle: 'Algo salió mal',
  errorText: 'No se pudieron guardar sus respuestas. Inténtelo de nuevo en un momento.',
  tooLargeTitle: 'Demasiado texto',
  tooLargeText: 'Las respuestas son más largas de lo que acepta este formulario. Acórtelas y envíelas de nuevo.',
  unreadableText: 'No se pudieron leer las respuestas. Vuelva al formulario y envíelo de nuevo.',
  cannotStore: 'Esta respuesta contiene un carácter que no se puede guardar (NUL). Elimínelo, por favor.',
  pageExpired: 'Esta página estuvo abierta más de una semana, así que sus respuestas aún no se enviaron. Revíselas y envíelas de nuevo.',
};

const STRINGS: Record<string, PageStrings> = { en, de, fr, es };

/** The frame strings for a language tag (`de-AT` uses `de`); English when there are none. */
export function pageStrings(language: string): PageStrings {
  const base = language.toLowerCase().split('-')[0] ?? 'en';
  return STRINGS[language.toLowerCase()] ?? STRINGS[base] ?? en;
}

/** The best of the frame languages for an Accept-Language header (pages without a form, e.g. 404). */
export function frameLanguage(acceptLanguage: string | undefined): string {
  return chooseLanguage({ defaultLanguage: 'en', languages: Object.keys(STRINGS) }, { acceptLanguage });
}
