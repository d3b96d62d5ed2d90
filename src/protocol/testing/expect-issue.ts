/** Test helpers that keep issue assertions short and uniform (valibot's expectSchemaIssue style). */
import { expect } from 'vitest';
import type { ProtocolIssue, WireResult } from '../issues.ts';

export interface IssueMatch {
  code: string;
  ruleId?: string;
  path?: string;
}

/** Asserts that some issue matches `want` (code, and the rule id / path when given). */
export function expectIssue(issues: readonly ProtocolIssue[], want: IssueMatch): void {
  const found = issues.some(
    (i) =>
      i.code === want.code &&
      (want.ruleId === undefined || i.ruleIds.includes(want.ruleId)) &&
      (want.path === undefined || i.path === want.path),
  );
  expect(found, `expected ${JSON.stringify(want)} among ${JSON.stringify(issues, null, 1)}`).toBe(true);
}

export function issuesOf<T>(result: WireResult<T>): ProtocolIssue[] {
  expect(result.ok, 'expected the result to fail').toBe(false);
  return result.ok ? [] : result.issues;
}

export function okValue<T>(result: WireResult<T>): T {
  if (!result.ok) expect.fail(`expected ok, got ${JSON.stringify(result.issues, null, 1)}`);
  return result.value;
}
