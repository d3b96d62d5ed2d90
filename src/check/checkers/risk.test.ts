/**
 * runtime-risk-approved with the fixture's truth (`approvalRequired`, issue 30): an effect on args
 * the fixture says need the user's approval fails without an approved screen showing them, even
 * when the provider declared no need (a policy that never asks); it passes with one, and for args
 * the truth does not name. Whole runs: the zoo's policy-never-asks fails it, the zoo's correct apps
 * pass (src/zoo/zoo.test.ts); the provider-declared path: properties/controls/provider-oracles.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../base/json.ts';
import type { ScreenRecord } from '../../sim/ground-truth.ts';
import type { CheckContext } from '../checker.ts';
import type { EffectNote, Observation } from '../observation.ts';
import { checkContext } from '../testing.ts';
import { runtimeRiskApproved } from './risk.ts';

const P = 'com.example.todo';
const URGENT = { text: 'urgent call' };

const effect = (args: JsonValue, approvalRequired = false): EffectNote => ({
  seq: 50,
  step: 50,
  t: 0,
  provider: P,
  pid: 2001,
  uid: 10_001,
  ownerUid: 10_001,
  requestId: 'r1',
  tool: 'add_todo',
  object: null,
  args,
  approvalRequired,
});

const screen = (lines: string[]): ScreenRecord => ({
  id: 1,
  seq: 20,
  step: 20,
  t: 0,
  packageName: P,
  activity: 'Confirm',
  uid: 10_002,
  pid: 2001,
  title: 'Add a to-do?',
  lines,
  answer: 'approve',
  answerSeq: 30,
  answerStep: 30,
  delivered: true,
});

const obs = (effects: EffectNote[], screens: ScreenRecord[] = []): Observation =>
  ({ effects, screens, calls: [], events: [], memo: new Map() }) as unknown as Observation;

const ctx = (truth?: (args: JsonValue) => boolean): CheckContext =>
  checkContext({
    providersUnderTest: [P],
    toolEffects: new Map([[`${P}|add_todo`, 'create']]),
    ...(truth ? { toolApprovalRequired: new Map([[`${P}|add_todo`, truth]]) } : {}),
  });

const urgent = (args: JsonValue) => JSON.stringify(args).includes('urgent');

describe("runtime-risk-approved with the fixture's approvalRequired", () => {
  it('fails an effect on args the fixture says need approval, though the provider declared no need', () => {
    const found = runtimeRiskApproved.check(obs([effect(URGENT)]), ctx(urgent));
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(
      /effect of add_todo request r1 .*\(as the fixture's approvalRequired says; the provider declared no need\), without the user approving it/,
    );
    expect(found[0]?.ruleIds).toEqual(['CETP-3.4-12']);
    // Without the fixture's truth, nothing says it needed approval.
    expect(runtimeRiskApproved.check(obs([effect(URGENT)]), ctx())).toEqual([]);
  });

  it('passes with an approved screen showing the args, and args the truth does not name', () => {
    expect(runtimeRiskApproved.check(obs([effect(URGENT)], [screen(['urgent call'])]), ctx(urgent))).toEqual(
      [],
    );
    expect(
      runtimeRiskApproved.check(obs([effect(URGENT)], [screen(['something else'])]), ctx(urgent)),
    ).toHaveLength(1);
    expect(runtimeRiskApproved.check(obs([effect({ text: 'milk' })]), ctx(urgent))).toEqual([]);
  });
});
