/**
 * bench/results/race-zoo.svg: median runs to first failure per zoo program and contestant (log scale),
 * drawn with the boundary charts' renderer (Vega-Lite → Vega → SVG, headless). A contestant whose
 * median is "not found" is drawn at the budget with a hollow mark.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../charts.ts';
import type { RaceZooResults } from './suite.ts';

export function raceZooSpec(r: RaceZooResults): TopLevelSpec {
  const values = r.figures
    .filter((f) => !f.contestant.startsWith('pct-3 ')) // the before/ablation rows stay in the JSON
    .map((f) => {
      const budget = r.budgets[f.program];
      const cap = f.contestant === 'fc.scheduler' ? budget?.fc : budget?.sim;
      return {
        program: f.program,
        contestant: f.contestant,
        runs: f.median ?? cap ?? 0,
        found: f.median === null ? 'not found (drawn at budget)' : 'median',
      };
    });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Race zoo (SCTBench): median runs to first failure, 20 trials',
    width: 900,
    height: 320,
    data: { values },
    mark: { type: 'point', size: 60, filled: true },
    encoding: {
      x: { field: 'program', type: 'nominal', sort: null, title: null, axis: { labelAngle: -40 } },
      xOffset: { field: 'contestant', type: 'nominal' },
      y: { field: 'runs', type: 'quantitative', scale: { type: 'log' }, title: 'runs (log scale)' },
      color: { field: 'contestant', type: 'nominal' },
      shape: { field: 'found', type: 'nominal', title: null },
      opacity: { condition: { test: "datum.found === 'median'", value: 1 }, value: 0.35 },
    },
    config: { font: 'Helvetica, Arial, sans-serif' },
  } as TopLevelSpec;
}

export async function renderRaceZooChart(results: RaceZooResults, dir: URL): Promise<string> {
  const path = fileURLToPath(new URL('race-zoo.svg', dir));
  writeFileSync(path, `${await renderSvg(raceZooSpec(results))}\n`);
  return path;
}
