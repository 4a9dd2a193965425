/**
 * The dashboard page's own words in the languages of the hosted pages (i18n.ts); a language without an entry
 * uses English for the frame, while question titles and options come from the form's translations.
 */
export interface DashboardStrings {
  results: string;
  responses: string;
  score: string;
  nps: string;
  promoters: string;
  passives: string;
  detractors: string;
  average: string;
  overTime: string;
  npsOverTime: string;
  averageOverTime: string;
  responsesOverTime: string;
  day: string;
  week: string;
  month: string;
  year: string;
  period: string;
  answered: string;
  skipped: string;
  count: string;
  share: string;
  value: string;
  figures: string;
  keywords: string;
  keywordsNote: string;
  noKeywords: string;
  keyword: string;
  phrases: string;
  phrase: string;
  sentiment: string;
  positive: string;
  neutral: string;
  negative: string;
  noResponses: string;
  download: string;
  downloadCsv: string;
  downloadNdjson: string;
  validUntil: string;
  notFoundTitle: string;
  notFoundText: string;
  answeredOnly: string;
  mean: string;
  topics: string;
  topicsNote: string;
  topic: string;
}

const en: DashboardStrings = {
  results: 'Results',
  responses: 'Responses',
  score: 'Score',
  nps: 'NPS',
  promoters: 'Promoters',
  passives: 'Passives',
  detractors: 'Detractors',
  average: 'Average score',
  overTime: 'Over time',
  npsOverTime: 'NPS per period',
  averageOverTime: 'Average score per period',
  responsesOverTime: 'Responses per period',
  day: 'Day',
  week: 'Week',
  month: 'Month',
  year: 'Year',
  period: 'Period starting',
  answered: 'answered',
  skipped: 'skipped',
  count: 'Count',
  share: 'Share',
  value: 'Answer',
  figures: 'Figures',
  keywords: 'Keywords',
  keywordsNote:
    'Words (all their forms counted together) used in at least 3 responses, with how many responses used them and the mean sentiment of those answers. The answers themselves are not shown on a shared page.',
  noKeywords: 'No word was used in 3 or more responses yet.',
  keyword: 'Word',
  phrases: 'Two-word phrases',
  phrase: 'Phrase',
  sentiment: 'Sentiment',
  positive: 'positive',
  neutral: 'neutral',
  negative: 'negative',
  noResponses: 'No responses yet. Charts appear here once people answer.',
  download: 'Download all responses',
  downloadCsv: 'CSV',
  downloadNdjson: 'NDJSON',
  validUntil: 'This page works until',
  notFoundTitle: 'This link does not work',
  notFoundText: 'The link is incomplete, was revoked or has expired. Ask the person who shared it for a new one.',
  answeredOnly: 'answers',
  mean: 'Mean',
  topics: 'Topics',
  topicsNote: "Responses tagged with each of the workspace's topics",
  topic: 'Topic',
};

const de: DashboardStrings = {
  results: 'Ergebnisse',
  responses: 'Antworten',
  score: 'Bewertung',
  nps: 'NPS',
  promoters: 'Promotoren',
  passives: 'Passive',
  detractors: 'Kritiker',
  average: 'Durchschnittliche Bewertung',
  overTime: 'Im Zeitverlauf',
  npsOverTime: 'NPS je Zeitraum',
  averageOverTime: 'Durchschnitt je Zeitraum',
  responsesOverTime: 'Antworten je Zeitraum',
  day: 'Tag',
  week: 'Woche',
  month: 'Monat',
  year: 'Jahr',
  period: 'Zeitraum ab',
  answered: 'beantwortet',
  skipped: 'übersprungen',
  count: 'Anzahl',
  share: 'Anteil',
  value: 'Antwort',
  figures: 'Zahlen',
  keywords: 'Stichwörter',
  keywordsNote:
    'Wörter (alle ihre Formen zusammen gezählt) aus mindestens 3 Antworten, mit der Zahl dieser Antworten und ihrer mittleren Stimmung. Die Antworten selbst zeigt eine geteilte Seite nicht.',
  noKeywords: 'Noch kein Wort kommt in 3 oder mehr Antworten vor.',
  keyword: 'Wort',
  phrases: 'Wortpaare',
  phrase: 'Wortpaar',
  sentiment: 'Stimmung',
  positive: 'positiv',
  neutral: 'neutral',
  negative: 'negativ',
  noResponses: 'Noch keine Antworten. Die Diagramme erscheinen hier, sobald jemand antwortet.',
  download: 'Alle Antworten herunterladen',
  downloadCsv: 'CSV',
  downloadNdjson: 'NDJSON',
  validUntil: 'Diese Seite ist gültig bis',
  notFoundTitle: 'Dieser Link funktioniert nicht',
  notFoundText: 'Der Link ist unvollständig, wurde widerrufen oder ist abgelaufen. Bitten Sie um einen neuen.',
  answeredOnly: 'Antworten',
  mean: 'Mittelwert',
  topics: 'Themen',
  topicsNote: 'Antworten je Thema des Arbeitsbereichs',
  topic: 'Thema',
};

const fr: DashboardStrings = {
  results: 'Résultats',
  responses: 'Réponses',
  score: 'Score',
  nps: 'NPS',
  promoters: 'Promoteurs',
  passives: 'Passifs',
  detractors: 'Détracteurs',
  average: 'Score moyen',
  overTime: 'Dans le temps',
  npsOverTime: 'NPS par période',
  averageOverTime: 'Score moyen par période',
  responsesOverTime: 'Réponses par période',
  day: 'Jour',
  week: 'Semaine',
  month: 'Mois',
  year: 'Année',
  period: 'Période à partir du',
  answered: 'répondu',
  skipped: 'sans réponse',
  count: 'Nombre',
  share: 'Part',
  value: 'Réponse',
  figures: 'Chiffres',
  keywords: 'Mots-clés',
  keywordsNote:
    'Mots (toutes leurs formes comptées ensemble) présents dans au moins 3 réponses, avec le nombre de ces réponses et leur sentiment moyen. Une page partagée ne montre pas les réponses elles-mêmes.',
  noKeywords: 'Aucun mot ne figure encore dans 3 réponses ou plus.',
  keyword: 'Mot',
  phrases: 'Paires de mots',
  phrase: 'Paire',
  sentiment: 'Sentiment',
  positive: 'positif',
  neutral: 'neutre',
  negative: 'négatif',
  noResponses: 'Pas encore de réponses. Les graphiques apparaîtront ici dès les premières réponses.',
  download: 'Télécharger toutes les réponses',
  downloadCsv: 'CSV',
  downloadNdjson: 'NDJSON',
  validUntil: 'Cette page est valable jusqu’au',
  notFoundTitle: 'Ce lien ne fonctionne pas',
  notFoundText: 'Le lien est incomplet, a été révoqué ou a expiré. Demandez-en un nouveau à la personne qui l’a partagé.',
  answeredOnly: 'réponses',
  mean: 'Moyenne',
  topics: 'Thèmes',
  topicsNote: "Réponses associées à chaque thème de l'espace de travail",
  topic: 'Thème',
};

const es: DashboardStrings = {
  results: 'Resultados',
  responses: 'Respuestas',
  score: 'Puntuación',
  nps: 'NPS',
  promoters: 'Promotores',
  passives: 'Pasivos',
  detractors: 'Detractores',
  average: 'Puntuación media',
  overTime: 'A lo largo del tiempo',
  npsOverTime: 'NPS por periodo',
  averageOverTime: 'Puntuación media por periodo',
  responsesOverTime: 'Respuestas por periodo',
  day: 'Día',
  week: 'Semana',
  month: 'Mes',
  year: 'Año',
  period: 'Periodo desde',
  answered: 'respondidas',
  skipped: 'omitidas',
  count: 'Cantidad',
  share: 'Porcentaje',
  value: 'Respuesta',
  figures: 'Cifras',
  keywords: 'Palabras clave',
  keywordsNote:
    'Palabras (todas sus formas contadas juntas) presentes en al menos 3 respuestas, con cuántas respuestas las usan y su sentimiento medio. Una página compartida no muestra las respuestas mismas.',
  noKeywords: 'Aún ninguna palabra aparece en 3 o más respuestas.',
  keyword: 'Palabra',
  phrases: 'Pares de palabras',
  phrase: 'Par',
  sentiment: 'Sentimiento',
  positive: 'positivo',
  neutral: 'neutro',
  negative: 'negativo',
  noResponses: 'Aún no hay respuestas. Los gráficos aparecerán aquí cuando alguien responda.',
  download: 'Descargar todas las respuestas',
  downloadCsv: 'CSV',
  downloadNdjson: 'NDJSON',
  validUntil: 'Esta página es válida hasta el',
  notFoundTitle: 'Este enlace no funciona',
  notFoundText: 'El enlace está incompleto, fue revocado o ha caducado. Pida uno nuevo a quien lo compartió.',
  answeredOnly: 'respuestas',
  mean: 'Media',
  topics: 'Temas',
  topicsNote: 'Respuestas etiquetadas con cada tema del espacio de trabajo',
  topic: 'Tema',
};

const STRINGS: Record<string, DashboardStrings> = { en, de, fr, es };

/** The dashboard strings of a language tag (its primary subtag), English when there is no entry. */
export function dashboardStrings(language: string): DashboardStrings {
  return STRINGS[language.toLowerCase().split('-')[0] ?? 'en'] ?? en;
}
