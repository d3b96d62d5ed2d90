/**
 * `cetp-sim rules`: the rule catalogue (spec/rules.json). With --coverage, what covers each rule —
 * checkers, properties, tests — and how many testable MUST / MUST NOT rules are covered; rules that
 * need coverage and have none are highlighted (with a note when spec/uncovered.md explains them).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FieldRow, fieldTable, unexplainedGaps } from '../../check/fields.ts';
import { EXIT_OK } from '../../harness/errors.ts';
import { PACKAGE_ROOT } from '../../harness/root.ts';
import { allRules } from '../../protocol/index.ts';
import { isTestableMust, type RuleCoverage, ruleCoverage, summarize } from '../coverage.ts';
import type { Io } from '../io.ts';
import { table } from '../table.ts';
import { parseUncovered } from '../uncovered.ts';

export interface RulesFlags {
  readonly coverage: boolean;
  readonly fields?: boolean;
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
  if (flags.fields) return fields(io, flags.json);
  return flags.coverage ? coverage(io, flags.json) : catalogue(io, flags.json);
}

function fieldJson({ field, judgedBy, gap }: FieldRow) {
  return {
    id: field.id,
    direction: field.direction,
    carrier: field.carrier,
    type: field.type,
    domain: field.domain,
    required: field.required,
    rules: field.ruleIds,
    judgedBy: judgedBy.map((j) => ({
      checker: j.checker,
      aspect: j.judgement.aspect,
      against: j.judgement.against,
    })),
    ...(gap !== null ? { gap } : {}),
  };
}

/** `--fields`: every wire field, how its schema and its consistency are judged, and by which oracles. */
function fields(io: Io, json: boolean): number {
  const rows = fieldTable();
  const unexplained = unexplainedGaps(rows);
  const judged = rows.filter((r) => r.gap === null && !unexplained.includes(r)).length;
  const summary = {
    fields: rows.length,
    judgedForConsistency: judged,
    explainedGaps: rows.filter((r) => r.gap !== null).length,
    unexplainedGaps: unexplained.length,
  };
  if (json) {
    io.out(
      JSON.stringify({
        fields: rows.map((row) => ({
          ...fieldJson(row),
          ...(unexplained.includes(row) ? { unexplained: true } : {}),
        })),
        summary,
      }),
    );
    return EXIT_OK;
  }
  const names = (aspect: string, r: FieldRow) =>
    [...new Set(r.judgedBy.filter((j) => j.judgement.aspect === aspect).map((j) => j.checker))].join(', ');
  const lines = table(
    ['field', 'dir', 'type', 'schema judged by', 'consistency judged by (or why not)'],
    rows.map((r) => {
      const consistency = names('consistency', r);
      const why =
        consistency !== ''
          ? consistency
          : r.gap !== null
            ? io.color.dim(short(`no oracle: ${r.gap}`))
            : io.color.red(io.color.bold('UNJUDGED'));
      return [
        r.field.id,
        r.field.direction === 'request' ? '→' : '←',
        r.field.type,
        short(names('schema', r)),
        r.judgedBy.length === 0 ? io.color.red(io.color.bold('UNJUDGED')) : why,
      ];
    }),
  );
  for (const line of lines) io.out(line);
  io.out('');
  io.out(
    `${summary.fields} wire fields (→ request, ← response): ${summary.judgedForConsistency} judged for consistency with the world, ${summary.explainedGaps} with a reason why not, ${summary.unexplainedGaps} unjudged. \`--json\` has each oracle's claim and each reason in full.`,
  );
  return EXIT_OK;
}
