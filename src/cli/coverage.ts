/**
 * What covers each rule of the catalogue: the checkers (oracles) that guard it, the properties that
 * name it, and the tests whose titles name it. `cetp-sim rules --coverage` prints it; the coverage
 * gate (rules-coverage.test.ts) fails when a testable MUST / MUST NOT has none of them and is not
 * listed with a reason in spec/uncovered.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_CHECKERS } from '../check/checkers/index.ts';
import { testCoverage } from '../check/test-titles.ts';
import { PROPERTIES } from '../fuzz/suites.ts';
import { CODE_ROOT } from '../harness/root.ts';
import { allRules, type Rule } from '../protocol/index.ts';

export const TEST_DIRS = ['src', 'properties'] as const;

export interface RuleCoverage {
  readonly rule: Rule;
  /** `checker:<id>`, `property:<id>`, `test:<path>`, in that order. */
  readonly coveredBy: readonly string[];
}

/** MUST and MUST NOT rules a simulation can test: the ones the gate requires to be covered. */
export function isTestableMust(rule: Rule): boolean {
  return (rule.level === 'MUST' || rule.level === 'MUST NOT') && rule.testableInSimulation;
}

/**
 * rule id → the test files naming it: read from the tests under `root`, or, where they are not (an
 * installed package ships no tests), from the record the build made of them (scripts/build.mjs).
 */
function testsNamingRules(root: string): Map<string, string[]> {
  const recorded = join(CODE_ROOT, 'rule-tests.json');
  if (TEST_DIRS.some((dir) => existsSync(join(root, dir))) || !existsSync(recorded))
    return testCoverage(root, TEST_DIRS);
  return new Map(Object.entries(JSON.parse(readFileSync(recorded, 'utf8')) as Record<string, string[]>));
}

export function ruleCoverage(root: string): RuleCoverage[] {
  const tests = testsNamingRules(root);
  return allRules().map((rule) => ({
    rule,
    coveredBy: [
      ...ALL_CHECKERS.filter((c) => c.ruleIds.includes(rule.id)).map((c) => `checker:${c.id}`),
      ...PROPERTIES.filter((p) => p.ruleIds.includes(rule.id)).map((p) => `property:${p.id}`),
      ...[...new Set(tests.get(rule.id) ?? [])].sort().map((file) => `test:${file.split('\\').join('/')}`),
    ],
  }));
}

export interface CoverageSummary {
  readonly testableMust: number;
  readonly covered: number;
}

export function summarize(coverage: readonly RuleCoverage[]): CoverageSummary {
  const required = coverage.filter((c) => isTestableMust(c.rule));
  return { testableMust: required.length, covered: required.filter((c) => c.coveredBy.length > 0).length };
}
