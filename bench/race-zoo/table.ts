/**
 * Prints bench/results/race-zoo.json as the markdown table in bench/README.md:
 *   npx tsx bench/race-zoo/table.ts
 * Each cell is the median runs to first failure over the trials, with how many trials found the bug
 * when not all did; "–" when fewer than half found it (the median is above the budget).
 */
import { readFileSync } from 'node:fs';
import type { ZooFigure } from './measure.ts';
import type { RaceZooResults } from './suite.ts';

export function markdownTable(r: RaceZooResults): string {
  const contestants = [...new Set(r.figures.map((f) => f.contestant))];
  const lines = [
    `| program (threads, bug) | ${contestants.join(' | ')} |`,
    `|---|${contestants.map(() => '--:').join('|')}|`,
  ];
  const cell = (f: ZooFigure | undefined) => {
    if (!f) return '';
    const trials = f.runsToFailure.length;
    const median = f.median === null ? '–' : String(f.median);
    return f.found === trials ? median : `${median} (${f.found}/${trials})`;
  };
  for (const p of r.programs) {
    const row = contestants.map((c) => cell(r.figures.find((f) => f.program === p.id && f.contestant === c)));
    const budget = r.budgets[p.id];
    const name = `${p.deep ? '**' : ''}${p.id}${p.deep ? '**' : ''} (${p.threads}, ${p.bug}${budget && budget.sim !== r.options.budget ? `; budget ${budget.sim}/${budget.fc}` : ''})`;
    lines.push(`| ${name} | ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = JSON.parse(
    readFileSync(new URL('../results/race-zoo.json', import.meta.url), 'utf8'),
  ) as RaceZooResults;
  console.log(markdownTable(results));
  console.log();
  for (const g of results.goals)
    console.log(`- ${g.met ? 'met' : '**not met**'}: ${g.goal} ${g.program} — ${g.detail}`);
}
