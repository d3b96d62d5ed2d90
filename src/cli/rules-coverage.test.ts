/**
 * The coverage gate: `npm test` fails when a testable MUST / MUST NOT rule is covered by no checker,
 * property or test and is not listed with a reason in spec/uncovered.md (format: src/cli/uncovered.ts),
 * and when that list has gone stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/root.ts';
import { isTestableMust, type RuleCoverage, ruleCoverage } from './coverage.ts';
import { parseUncovered } from './uncovered.ts';

const coverage = ruleCoverage(PACKAGE_ROOT);
const list = parseUncovered(readFileSync(join(PACKAGE_ROOT, 'spec/uncovered.md'), 'utf8'));
const listed = new Map(list.entries.map((e) => [e.rule, e]));

describe('rule coverage gate (spec/uncovered.md)', () => {
  it('spec/uncovered.md is well formed: every entry has a reason, no rule twice', () => {
    expect(list.problems).toEqual([]);
  });

  it('every testable MUST / MUST NOT is covered by a checker, a property or a test, or listed with a reason', () => {
    const offenders = coverage
      .filter((c) => isTestableMust(c.rule) && c.coveredBy.length === 0 && !listed.has(c.rule.id))
      .map((c) => `${c.rule.id} (${c.rule.level}, ${c.rule.actor}): ${c.rule.textEn}`);
    expect(offenders, 'cover these rules, or list them with a reason in spec/uncovered.md').toEqual([]);
  });

  it('spec/uncovered.md lists no rule that is covered, unknown, or not a testable MUST / MUST NOT', () => {
    const byId = new Map<string, RuleCoverage>(coverage.map((c) => [c.rule.id, c]));
    const stale = list.entries.flatMap((e) => {
      const c = byId.get(e.rule);
      if (!c) return [`line ${e.line}: ${e.rule} is not a rule id`];
      if (!isTestableMust(c.rule))
        return [
          `line ${e.line}: ${e.rule} is ${c.rule.level}, testable=${c.rule.testableInSimulation}: not required`,
        ];
      if (c.coveredBy.length > 0)
        return [`line ${e.line}: ${e.rule} is covered now (${c.coveredBy.join(', ')}): remove it`];
      return [];
    });
    expect(stale).toEqual([]);
  });
});
