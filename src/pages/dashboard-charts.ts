/**
 * The dashboard page's charts (docs/analytics.md, "Dashboard links"): Apache ECharts' server-side SVG renderer
 * (no DOM, no browser script), animation and hover effects off. Each chart is rendered twice, for wide and
 * for narrow screens (CSS shows one), so its text stays readable at 360 px; the SVG scales by its viewBox.
 *
 * The pages' Content-Security-Policy allows no inline style: ECharts' `style="…"` attributes become SVG
 * presentation attributes and its hover `<style>` block is dropped. Texts are escaped by ECharts itself.
 *
 * A render costs about 10 ms of CPU whatever the number of responses, more than the page's reads: the SVG of
 * each chart is kept in an in-process LRU keyed by a hash of everything it is drawn from (options, size),
 * so a page whose figures have not changed since the last view renders nothing, and a changed count
 * renders that chart anew (docs/analytics.md, "Dashboard links").
 *
 * ECharts loads with the first chart a process renders, not with the server: it holds about 17 MB of RSS that a
 * process serving only the API never needs (docs/operations.md, "Memory").
 */
import { createHash } from 'node:crypto';
import type * as Echarts from 'echarts';
import { LRUCache } from 'lru-cache';

let loadedEcharts: typeof Echarts | undefined;
/** ECharts, required on first use (see the module comment). */
function echarts(): typeof Echarts {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the first chart, not at start (17 MB)
  return (loadedEcharts ??= require('echarts') as typeof Echarts);
}

/** Rendering widths in px: a chart in a grid column, the full-width line, a phone. */
export const WIDE = 440;
export const FULL = 880;
export const NARROW = 320;

/** Colours with at least 4.5:1 contrast on white (text) and 3:1 (bars). */
export const COLOURS = { bar: '#1d4ed8', line: '#1d4ed8', text: '#374151', grid: '#d1d5db', detractor: '#b91c1c', passive: '#a16207', promoter: '#15803d' };

const FONT = 'system-ui, sans-serif';

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** ECharts' SVG made fit for the strict CSP and for screen readers (`role="img"` with `label`). */
export function cleanSvg(svg: string, label: string, cls: string): string {
  return svg
    .replace(/<style\b[^>]*>[\s\S]*?<\/style>/g, '')
    .replace(/ style="([^"]*)"/g, (_m, decls: string) =>
      decls
        .split(';')
        .map((d) => d.trim())
        .filter((d) => /^[a-z-]+\s*:/.test(d))
        .map((d) => {
          const i = d.indexOf(':');
          return ` ${d.slice(0, i).trim()}="${attr(d.slice(i + 1).trim())}"`;
        })
        .join(''),
    )
    .replace(/ (ecmeta_[a-z_]+|class)="[^"]*"/g, '')
    .replace(/^<svg width="\d+(?:\.\d+)?" height="\d+(?:\.\d+)?"/, `<svg role="img" aria-label="${attr(label)}" class="chart ${cls}" focusable="false"`);
}

/** Rendered SVGs by content hash: at most 32 MiB of markup (a chart is 3–20 KiB). */
const rendered = new LRUCache<string, string>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (svg) => Math.max(1, svg.length) });

function render(option: Echarts.EChartsCoreOption, width: number, height: number): string {
  const full = { animation: false, textStyle: { fontFamily: FONT, color: COLOURS.text, fontSize: width < 400 ? 12 : 13 }, ...option };
  const key = createHash('sha256')
    .update(JSON.stringify([width, height, full]))
    .digest('base64url');
  const hit = rendered.get(key);
  if (hit !== undefined) return hit;
  const chart = echarts().init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(full);
    const svg = chart.renderToSVGString();
    rendered.set(key, svg);
    return svg;
  } finally {
    chart.dispose();
  }
}

/** The wide and the narrow rendering of one chart, each `role="img"` with `label`. */
export function chartPair(label: string, option: (width: number) => Echarts.EChartsCoreOption, height: (width: number) => number, wide = WIDE): string {
  return [
    cleanSvg(render(option(wide), wide, height(wide)), label, 'chart-wide'),
    cleanSvg(render(option(NARROW), NARROW, height(NARROW)), label, 'chart-narrow'),
  ].join('\n');
}

const axisCommon = { axisLine: { lineStyle: { color: COLOURS.text } }, axisLabel: { color: COLOURS.text }, splitLine: { lineStyle: { color: COLOURS.grid } } };

/**
 * Horizontal bars: one per category (choices, long labels), the count at the end of each bar.
 * @param colours per bar, else the one bar colour.
 * @param wide the wide rendering's width in px: WIDE for a card of the two-column grid, FULL for a full-width card.
 */
export function barChart(
  label: string,
  categories: string[],
  counts: number[],
  opts: { horizontal?: boolean; colours?: string[]; wide?: number } = {},
): string {
  const horizontal = opts.horizontal ?? true;
  const data = counts.map((value, i) => ({ value, itemStyle: { color: opts.colours?.[i] ?? COLOURS.bar } }));
  // Many bars (a number question's values): no count over each and thinned axis labels; the figures table has them all.
  const crowded = categories.length > 12;
  const series = {
    type: 'bar',
    data,
    silent: true,
    emphasis: { disabled: true },
    label: { show: !crowded, position: horizontal ? 'right' : 'top', color: COLOURS.text },
    barMaxWidth: 28,
  };
  return chartPair(
    label,
    (w) => {
      const valueAxis = { type: 'value', minInterval: 1, splitNumber: w < 400 ? 3 : 5, ...axisCommon };
      const catAxis = {
        type: 'category',
        data: categories,
        inverse: horizontal,
        ...axisCommon,
        axisLabel: {
          color: COLOURS.text,
          width: horizontal ? (w < 400 ? 96 : 150) : undefined,
          overflow: 'truncate',
          interval: crowded ? 'auto' : 0,
          hideOverlap: true,
        },
      };
      return {
        grid: { left: 24, right: 40, top: 20, bottom: 8, containLabel: true },
        xAxis: horizontal ? valueAxis : catAxis,
        yAxis: horizontal ? catAxis : valueAxis,
        series: [series],
      };
    },
    () => (horizontal ? Math.max(120, 36 * categories.length + 40) : 220),
    opts.wide,
  );
}

/** A line over periods (the score over time); null values leave gaps. */
export function lineChart(label: string, periods: string[], values: Array<number | null>, yRange?: { min: number; max: number }): string {
  return chartPair(
    label,
    (w) => ({
      grid: { left: w < 400 ? 40 : 24, right: 24, top: 16, bottom: 8, containLabel: true },
      xAxis: {
        type: 'category',
        data: periods,
        boundaryGap: false,
        ...axisCommon,
        axisLabel: { color: COLOURS.text, hideOverlap: true, rotate: w < 400 ? 30 : 0 },
      },
      yAxis: { type: 'value', ...(yRange ?? {}), ...axisCommon },
      series: [
        {
          type: 'line',
          data: values,
          silent: true,
          emphasis: { disabled: true },
          connectNulls: false,
          showSymbol: periods.length <= 40,
          lineStyle: { color: COLOURS.line, width: 2 },
          itemStyle: { color: COLOURS.line },
        },
      ],
    }),
    (w) => (w < 400 ? 200 : 260),
    FULL,
  );
}
