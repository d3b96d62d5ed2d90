/**
 * The boundary benchmark's charts: Vega-Lite specs built from bench/results/boundary.json, compiled
 * to Vega and rendered headless to SVG (vega's View.toSVG, no browser, no canvas). `npm run bench --
 * boundary` draws them after measuring; `npm run charts` redraws them from the committed JSON.
 *
 *   boundary-cost.svg         ms per call by result size: each path and its floor (log–log)
 *   boundary-ratio.svg        each path over its floor, with the 1.3× goal
 *   boundary-memory.svg       verifying a 16 MiB file result, against the 3× goal
 *   boundary-concurrency.svg  failed transactions and failed calls by concurrent calls and size
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { KIB } from './boundary/payload.ts';
import type { BoundaryResults } from './boundary.bench.ts';

const LIMIT_KIB = 256;
const SIZE_TICKS_KIB = [1, 4, 16, 64, 256, 1024, 4096, 16384];
const WIDTH = 560;
const HEIGHT = 320;
const FONT = 'Helvetica, Arial, sans-serif';

const sizeAxis = {
  field: 'kib',
  type: 'quantitative',
  title: 'result size (KiB, log scale)',
  scale: { type: 'log', base: 2, domain: [1, 16384] },
  axis: { values: SIZE_TICKS_KIB, format: ',d' },
} as const;

/** Annotation layers draw one mark each: they need one (empty) datum of their own. */
const ONE = { values: [{}] };

/** A dashed vertical rule at the 256 KiB inline limit, labelled. */
function limitRule(label = 'inline limit 256 KiB') {
  return [
    {
      data: ONE,
      mark: { type: 'rule', strokeDash: [6, 4], color: '#444' },
      encoding: { x: { datum: LIMIT_KIB, type: 'quantitative' } },
    },
    {
      data: ONE,
      mark: { type: 'text', align: 'left', dx: 4, dy: 6, baseline: 'top', color: '#444', fontSize: 11 },
      encoding: {
        x: { datum: LIMIT_KIB, type: 'quantitative' },
        y: { value: 0 },
        text: { value: label },
      },
    },
  ];
}

const config = {
  font: FONT,
  title: { fontSize: 15, anchor: 'start' },
  axis: { labelFontSize: 11, labelLimit: 320 },
  legend: {
    labelLimit: 0,
    labelFontSize: 11,
    orient: 'bottom',
    direction: 'vertical',
    columns: 2,
    symbolType: 'stroke',
    symbolStrokeWidth: 2,
  },
};

/** Inline in blue, file in orange; the floor (or a second measure) dashed. */
function pathStyle(series: readonly string[]) {
  return {
    color: {
      field: 'series',
      type: 'nominal',
      title: null,
      scale: { domain: series, range: ['#1f77b4', '#1f77b4', '#e6550d', '#e6550d'] },
    },
    strokeDash: {
      field: 'series',
      type: 'nominal',
      title: null,
      scale: {
        domain: series,
        range: [
          [1, 0],
          [5, 4],
          [1, 0],
          [5, 4],
        ],
      },
    },
  };
}

export function costSpec(r: BoundaryResults): TopLevelSpec {
  const series = [
    'inline result, real path',
    'inline floor: stringify + copy + parse',
    'file result, real path',
    'file floor: SHA-256 + parse + Ajv',
  ];
  const values = r.cost.flatMap((p) => {
    const [real, floor] = p.path === 'inline' ? series.slice(0, 2) : series.slice(2);
    return [
      { kib: p.sizeBytes / KIB, ms: p.pathMs, series: real },
      { kib: p.sizeBytes / KIB, ms: p.floorMs, series: floor },
    ];
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Cost of one execute_tool result by size',
      subtitle: 'median ms per call through SDK, simulated Binder and consumer; floors timed alongside',
    },
    width: WIDTH,
    height: HEIGHT,
    config,
    layer: [
      {
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: sizeAxis,
          y: { field: 'ms', type: 'quantitative', title: 'ms per call (log scale)', scale: { type: 'log' } },
          ...pathStyle(series),
        },
      },
      ...limitRule(),
    ],
  } as TopLevelSpec;
}

export function ratioSpec(r: BoundaryResults): TopLevelSpec {
  const series = [
    'inline ÷ its floor',
    'inline ÷ its full floor (+ both schema checks)',
    'file ÷ its floor',
    'file ÷ its full floor (+ provider stringify, SHA-256)',
  ];
  const values = r.cost.flatMap((p) => {
    const [floor, full] = p.path === 'inline' ? series.slice(0, 2) : series.slice(2);
    return [
      { kib: p.sizeBytes / KIB, ratio: p.ratio, series: floor },
      { kib: p.sizeBytes / KIB, ratio: p.fullRatio, series: full },
    ];
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'How close each path is to what its bytes cost',
      subtitle: 'real path ÷ floor, same process and run; below 64 KiB the fixed cost of a call dominates',
    },
    width: WIDTH,
    height: HEIGHT,
    config,
    layer: [
      {
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: sizeAxis,
          y: {
            field: 'ratio',
            type: 'quantitative',
            title: 'real path ÷ floor (×, log scale)',
            scale: { type: 'log', domain: [0.8, 12], nice: false },
            axis: { values: [0.8, 1, 1.3, 2, 3, 5, 10] },
          },
          ...pathStyle(series),
        },
      },
      {
        data: ONE,
        mark: { type: 'rule', color: '#c0392b', strokeDash: [2, 2] },
        encoding: { y: { datum: 1.3, type: 'quantitative' } },
      },
      {
        data: ONE,
        mark: { type: 'text', align: 'left', dx: 4, dy: -8, color: '#c0392b', fontSize: 11 },
        encoding: { x: { value: 0 }, y: { datum: 1.3, type: 'quantitative' }, text: { value: 'goal 1.3×' } },
      },
      ...limitRule(),
    ],
  } as TopLevelSpec;
}

export function memorySpec(r: BoundaryResults): TopLevelSpec {
  const m = r.memory;
  const fileMb = m.fileBytes / 1e6;
  const values = [
    { what: 'the file itself', mb: fileMb },
    { what: 'peak RSS growth while verifying', mb: m.peakRssGrowthMb },
    { what: 'held right after (value kept)', mb: m.heldGrowthMb },
    { what: 'left after the run (value gone), GC', mb: m.leftGrowthMb },
  ];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Memory while the consumer verifies a 16 MiB (${fileMb.toFixed(1)} MB) file result`,
      subtitle: `read through the fd, size + SHA-256 check, decode, parse, output schema; peak ${m.peakPerFileByte}× the file`,
    },
    width: WIDTH,
    height: 200,
    config,
    layer: [
      {
        data: { values },
        mark: { type: 'bar', color: '#4c78a8' },
        encoding: {
          y: { field: 'what', type: 'nominal', title: null, sort: null },
          x: { field: 'mb', type: 'quantitative', title: 'MB (10⁶ bytes)' },
        },
      },
      {
        data: { values },
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 11 },
        encoding: {
          y: { field: 'what', type: 'nominal', sort: null },
          x: { field: 'mb', type: 'quantitative' },
          text: { field: 'mb', type: 'quantitative', format: '.1f' },
        },
      },
      {
        data: ONE,
        mark: { type: 'rule', color: '#c0392b', strokeDash: [4, 3] },
        encoding: { x: { datum: 3 * fileMb, type: 'quantitative' } },
      },
      {
        data: ONE,
        mark: {
          type: 'text',
          align: 'right',
          dx: -4,
          dy: 4,
          baseline: 'top',
          color: '#c0392b',
          fontSize: 11,
        },
        encoding: {
          x: { datum: 3 * fileMb, type: 'quantitative' },
          y: { value: 0 },
          text: { value: 'goal: 3× the file' },
        },
      },
    ],
  } as TopLevelSpec;
}

const STRATEGY_TITLES: Readonly<Record<string, string>> = {
  fifo: 'fifo: replies wait while other calls are served',
  random: 'random schedules (10 seeds)',
  pct: 'PCT schedules (10 seeds): each caller reads at once',
};

export function concurrencySpec(r: BoundaryResults): TopLevelSpec {
  const values = r.concurrency.flatMap((c) => {
    const base = {
      n: c.concurrency,
      size: `${c.sizeBytes / KIB} KiB`,
      kib: c.sizeBytes / KIB,
      strategy: STRATEGY_TITLES[c.strategy] ?? c.strategy,
    };
    return [
      { ...base, share: c.failedTransactionShare, metric: 'transactions that failed (DeadObjectException)' },
      { ...base, share: c.failedCallShare, metric: 'calls with no result after 4 re-sends' },
    ];
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Concurrent inline results in Binder’s shared 1 MiB − 8 KiB buffer',
      subtitle:
        'N calls at once, each answered inline with s bytes (its reply parcel ≈ 2·s: UTF-16); provider max_concurrent_requests = N',
    },
    config: { ...config, header: { labelFontSize: 12, labelFontWeight: 'bold', labelLimit: 0 } },
    data: { values },
    facet: {
      column: { field: 'metric', type: 'nominal', title: null, sort: 'descending' },
      row: {
        field: 'strategy',
        type: 'nominal',
        title: null,
        sort: Object.values(STRATEGY_TITLES),
        header: { labelAngle: 0, labelAlign: 'left', labelAnchor: 'start', labelOrient: 'top' },
      },
    },
    spec: {
      width: 300,
      height: 150,
      mark: { type: 'line', point: true },
      encoding: {
        x: {
          field: 'n',
          type: 'quantitative',
          title: 'concurrent calls (log scale)',
          scale: { type: 'log', base: 2 },
          axis: { values: [1, 2, 4, 8, 16], format: 'd' },
        },
        y: {
          field: 'share',
          type: 'quantitative',
          title: 'share',
          axis: { format: '%', values: [0, 0.25, 0.5, 0.75, 1] },
          scale: { domain: [0, 1] },
        },
        color: {
          field: 'size',
          type: 'ordinal',
          title: 'inline result',
          sort: { field: 'kib' },
          scale: { scheme: 'viridis' },
        },
      },
    },
  } as TopLevelSpec;
}

export const CHARTS: Readonly<Record<string, (r: BoundaryResults) => TopLevelSpec>> = {
  'boundary-cost.svg': costSpec,
  'boundary-ratio.svg': ratioSpec,
  'boundary-memory.svg': memorySpec,
  'boundary-concurrency.svg': concurrencySpec,
};

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

/** Draws every chart from `results` into `dir`; returns the files written. */
export async function renderCharts(results: BoundaryResults, dir: URL): Promise<string[]> {
  const written: string[] = [];
  for (const [file, spec] of Object.entries(CHARTS)) {
    const path = fileURLToPath(new URL(file, dir));
    writeFileSync(path, `${await renderSvg(spec(results))}\n`);
    written.push(path);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = new URL('./results/', import.meta.url);
  const results = JSON.parse(readFileSync(new URL('boundary.json', dir), 'utf8')) as BoundaryResults;
  for (const path of await renderCharts(results, dir)) console.log(`wrote ${path}`);
}
