/**
 * `cetp-sim rules`: the rule catalogue (spec/rules.json). With --coverage, what covers each rule —
 * checkers, properties, tests — and how many testable MUST / MUST NOT rules are covered; rules that
 * need coverage and have none are highlighted (with a note when spec/uncovered.md explains them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_OK } from '../../harness/errors.ts';
import { PACKAGE_ROOT } from '../../harness/root.ts';
import { allRules } from '../../protocol/index.ts';
import { isTestableMust, type RuleCoverage, ruleCoverage, summarize } from '../coverage.ts';
import type { Io } from '../io.ts';
import { table } from '../table.ts';
import { parseUncovered } from '../uncovered.ts';

export interface RulesFlags {
  readonly coverage: boolean;
  readonly json: boolean;
}

const TEXT_WIDTH = 90;

function short(text: string): string {
  return text.length > TEXT_WIDTH ? `${text.slice(0, TEXT_WIDTH - 1)}…` : text;
}

function catalogue(io: Io, json: boolean): number {
  const rules = allRules();
  if (json) {
    io.out(
      JSON.stringify({
        rules: rules.map((r) => ({
          id: r.id,
          level: r.level,
          actor: r.actor,
          section: r.section,
          testable: r.testableInSimulation,
          text: r.textEn,
        })),
      }),
    );
    return EXIT_OK;
  }
  const rows = rules.map((r) => [
    r.id,
    r.level,
    r.actor,
    r.testableInSimulation ? 'yes' : 'no',
    short(r.textEn),
  ]);
  for (const line of table(['rule', 'level', 'actor', 'testable', 'text'], rows)) io.out(line);
  io.out('');
  io.out(`${rules.length} rules. \`cetp-sim rules --coverage\` shows what covers each.`);
  return EXIT_OK;
}

function explained(): Set<string> {
  try {
    const text = readFileSync(join(PACKAGE_ROOT, 'spec/uncovered.md'), 'utf8');
    return new Set(parseUncovered(text).entries.map((e) => e.rule));
  } catch {
    return new Set();
  }
}

function count(coveredBy: readonly string[], kind: string, noun: string, plural: string): string | null {
  const n = coveredBy.filter((c) => c.startsWith(`${kind}:`)).length;
  return n === 0 ? null : `${n} ${n === 1 ? noun : plural}`;
}

function coverageRow(io: Io, c: RuleCoverage, listed: ReadonlySet<string>): string[] {
  const { rule, coveredBy } = c;
  const base = [rule.id, rule.level, rule.testableInSimulation ? 'yes' : 'no'];
  if (coveredBy.length > 0) {
    const parts = [
      count(coveredBy, 'checker', 'checker', 'checkers'),
      count(coveredBy, 'property', 'property', 'properties'),
      count(coveredBy, 'test', 'test', 'tests'),
    ].filter((p): p is string => p !== null);
    const named = coveredBy.filter((x) => !x.startsWith('test:')).map((x) => x.split(':')[1]);
    return [...base, `${parts.join(', ')}${named.length > 0 ? ` (${named.join(', ')})` : ''}`];
  }
  if (!isTestableMust(rule)) return [...base, io.color.dim('—')];
  const note = listed.has(rule.id) ? 'NOT COVERED (reason in spec/uncovered.md)' : 'NOT COVERED';
  return [...base, note].map((cell) => io.color.red(io.color.bold(cell)));
}

function coverage(io: Io, json: boolean): number {
  const all = ruleCoverage(PACKAGE_ROOT);
  const summary = summarize(all);
  if (json) {
    io.out(
      JSON.stringify({
        rules: all.map(({ rule, coveredBy }) => ({
          id: rule.id,
          level: rule.level,
          testable: rule.testableInSimulation,
          coveredBy,
        })),
        summary,
      }),
    );
    return EXIT_OK;
  }
  const listed = explained();
  const rows = all.map((c) => coverageRow(io, c, listed));
  for (const line of table(['rule', 'level', 'testable', 'covered by'], rows)) io.out(line);
  io.out('');
  io.out(
    `${summary.covered} of ${summary.testableMust} testable MUST / MUST NOT rules are covered by a checker, a property or a test.`,
  );
  return EXIT_OK;
}

export function rulesCommand(io: Io, flags: RulesFlags): number {
  return flags.coverage ? coverage(io, flags.json) : catalogue(io, flags.json);
}
