/**
 * The dashboard page's view (docs/analytics.md, "Dashboard links"): the core's figures in the page's language,
 * each chart as SVG (dashboard-charts.ts) with the same figures as a table for screen readers and text browsers.
 */
import { INTERVALS } from '../core/analytics/analytics.store';
import type { DashboardData } from '../core/dashboards/dashboard';
import type { FormQuestion } from '../core/forms/form-model';
import { barChart, COLOURS, FULL, lineChart } from './dashboard-charts';
import { dashboardStrings, type DashboardStrings } from './dashboard-i18n';
import { keywordCard, type KeywordCardView } from './dashboard-keywords';

/** The figures of a chart: column headers and rows of texts. */
export interface FigureTable {
  head: string[];
  rows: string[][];
}

export interface ChartView {
  id: string;
  title: string;
  /** A line under the title (answered/skipped, mean…). */
  note: string;
  /** Trusted SVG markup (escaped by ECharts), empty for none. */
  svg: string;
  table?: FigureTable;
  /** Text questions: the keywords card (escaped by the template; dashboard-keywords.ts). */
  keywords?: KeywordCardView;
}

export interface DashboardView {
  lang: string;
  s: DashboardStrings;
  formName: string;
  responses: string;
  /** The score summary: big number and its parts, or undefined. */
  score?: { label: string; value: string; parts: Array<{ label: string; value: string; cls: string }> };
  overTime?: ChartView;
  intervals: Array<{ label: string; href: string; current: boolean }>;
  questions: ChartView[];
  /** The topics card (templates/topics-card.eta), undefined when the workspace has no topic. */
  topics?: ChartView;
  downloads: Array<{ label: string; href: string }>;
  validUntil: string;
}

function localTexts(data: DashboardData, lang: string) {
  const tr = lang === data.form.defaultLanguage ? undefined : data.form.translations[lang];
  return {
    title: (q: FormQuestion) => tr?.[q.id]?.title ?? q.title,
    option: (q: FormQuestion, id: string, fallback: string) => tr?.[q.id]?.options?.[id] ?? fallback,
  };
}

/**
 * The topics card: the form's responses per topic of the workspace (docs/analytics.md, "Topics"), a bar per topic
 * and the same counts as a table; only names and counts, no text from the responses.
 */
function topicsView(data: DashboardData, s: DashboardStrings, fmt: (n: number) => string): ChartView | undefined {
  if (data.topics.length === 0) return undefined;
  const names = data.topics.map((t) => t.name);
  const counts = data.topics.map((t) => t.responses);
  return {
    id: 'topics',
    title: s.topics,
    note: s.topicsNote,
    svg: counts.some((n) => n > 0) ? barChart(s.topics, names, counts, { wide: FULL }) : '',
    table: { head: [s.topic, s.responses], rows: data.topics.map((t) => [t.name, fmt(t.responses)]) },
  };
}

/**
 * Builds the page's view.
 * @param base the page's path (`/d/{token}`), for the interval and download links.
 * @param downloadToken the page's one-time download token.
 */
export function buildDashboardView(data: DashboardData, lang: string, base: string, downloadToken: string, expiresAt: Date): DashboardView {
  const s = dashboardStrings(lang);
  const num = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
  const pct = new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 });
  const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '–' : num.format(n));
  const day = (d: Date) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeZone: 'UTC' }).format(d);
  const t = localTexts(data, lang);

  let score: DashboardView['score'];
  const sc = data.score;
  if (sc && data.scoreQuestion?.type === 'nps') {
    score = {
      label: s.nps,
      value: fmt(sc.nps),
      parts: [
        { label: s.promoters, value: fmt(sc.promoters), cls: 'promoter' },
        { label: s.passives, value: fmt(sc.passives), cls: 'passive' },
        { label: s.detractors, value: fmt(sc.detractors), cls: 'detractor' },
      ],
    };
  } else if (sc) {
    score = { label: s.average, value: fmt(sc.mean), parts: [{ label: s.answered, value: fmt(sc.answered), cls: '' }] };
  }

  let overTime: ChartView | undefined;
  if (data.series.length > 0) {
    const nps = data.scoreQuestion?.type === 'nps';
    const label = data.scoreQuestion === undefined ? s.responsesOverTime : nps ? s.npsOverTime : s.averageOverTime;
    const values = data.series.map((p) => (data.scoreQuestion === undefined ? p.responses : nps ? p.nps : p.averageScore));
    overTime = {
      id: 'over-time',
      title: `${s.overTime}: ${label}`,
      note: '',
      svg: lineChart(
        label,
        data.series.map((p) => p.periodStart),
        values,
        nps ? { min: -100, max: 100 } : undefined,
      ),
      table: {
        head: [s.period, s.responses, nps ? s.nps : s.average],
        rows: data.series.map((p) => [p.periodStart, fmt(p.responses), fmt(nps ? p.nps : p.averageScore)]),
      },
    };
  }

  const questions: ChartView[] = data.questions.map(({ question: q, analytics: a, keywords }, i) => {
    const title = t.title(q);
    const note = `${fmt(a.answered)} ${s.answered} · ${fmt(a.skipped)} ${s.skipped}`;
    const view: ChartView = { id: `q${i + 1}`, title, note, svg: '' };
    const share = (c: number) => (a.answered > 0 ? pct.format(c / a.answered) : '–');
    if (a.options) {
      const labels = a.options.map((o) => t.option(q, o.id, o.value));
      const counts = a.options.map((o) => o.count);
      if (a.answered > 0) view.svg = barChart(title, labels, counts);
      view.table = { head: [s.value, s.count, s.share], rows: a.options.map((o, k) => [labels[k]!, fmt(o.count), share(o.count)]) };
    } else if (a.distribution) {
      const isNps = q.type === 'nps';
      // nps 0..10 and a rating's whole scale (default 1..5), so an unused value shows as an empty bar.
      const scale = isNps ? { min: 0, max: 10 } : q.type === 'rating' ? { min: q.validation?.min ?? 1, max: q.validation?.max ?? 5 } : undefined;
      const keys = scale
        ? Array.from({ length: scale.max - scale.min + 1 }, (_, k) => String(scale.min + k))
        : Object.keys(a.distribution).sort((x, y) => Number(x) - Number(y));
      const counts = keys.map((k) => a.distribution![k] ?? 0);
      const colours = isNps ? keys.map((k) => (Number(k) >= 9 ? COLOURS.promoter : Number(k) >= 7 ? COLOURS.passive : COLOURS.detractor)) : undefined;
      if (a.answered > 0) view.svg = barChart(title, keys, counts, { horizontal: false, ...(colours ? { colours } : {}) });
      view.table = { head: [s.value, s.count, s.share], rows: keys.map((k, n) => [k, fmt(counts[n]), share(counts[n]!)]) };
      if (isNps) view.note += ` · ${s.nps} ${fmt(a.nps)}`;
      else if (a.mean !== undefined) view.note += ` · ${s.mean} ${fmt(a.mean)}`;
    } else if (keywords) {
      view.keywords = keywordCard(keywords, s, fmt);
    }
    return view;
  });

  const topics = topicsView(data, s, fmt);
  return {
    lang,
    s,
    formName: data.name,
    responses: fmt(data.totalResponses),
    ...(score ? { score } : {}),
    ...(overTime ? { overTime } : {}),
    intervals: INTERVALS.map((iv) => ({ label: s[iv], href: `${base}?interval=${iv}&lang=${encodeURIComponent(lang)}`, current: iv === data.interval })),
    questions,
    ...(topics ? { topics } : {}),
    downloads: [
      { label: s.downloadCsv, href: `${base}/export?format=csv&t=${encodeURIComponent(downloadToken)}` },
      { label: s.downloadNdjson, href: `${base}/export?format=ndjson&t=${encodeURIComponent(downloadToken)}` },
    ],
    validUntil: day(expiresAt),
  };
}
