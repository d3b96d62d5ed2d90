import { describe, expect, it } from 'vitest';
import type { Violation } from '../check/checker.ts';
import type { CodeIdentity } from './code-identity.ts';
import { type ReplayRun, replayVerdict } from './replay-core.ts';
import { type CliReplayFile, inputDigests } from './replay-file.ts';

const CODE: CodeIdentity = { cetpSim: 'a'.repeat(64) };
const FILE = {
  format: 'cetp-sim/replay@1',
  property: 'idempotency',
  rules: [],
  fuzz: { seed: 0, runsToFailure: 1, shrinks: 0 },
  variant: { providerBugs: [], consumerBugs: [], disabledRules: [] },
  scenario: { actors: {}, decisions: [], faults: [] },
  traceHash: '1'.repeat(64),
  violations: [],
  code: CODE,
} as unknown as CliReplayFile;
const RECORDED: CliReplayFile = { ...FILE, inputs: inputDigests(FILE) };
const VIOLATION = { checker: 'x', ruleIds: [], class: 'correctness', message: 'm', events: [], calls: [] };

function run(traceHash: string, violations: readonly Violation[] = [], finished = true): ReplayRun {
  return { violations, traceHash, events: [], finished };
}

describe('the replay verdict', () => {
  it('the same trace from the same code: no break, no note; failed is the run verdict', () => {
    const v = replayVerdict(RECORDED, run(RECORDED.traceHash, [VIOLATION as Violation]), () => CODE);
    expect([v.failed, v.determinismBreak, v.note, v.codeChanged, v.edited]).toEqual([
      true,
      null,
      null,
      [],
      [],
    ]);
  });

  it('another trace from the same code is a determinism break', () => {
    const v = replayVerdict(RECORDED, run('2'.repeat(64)), () => CODE);
    expect(v.determinismBreak).toMatch(
      /^DETERMINISM BREAK: the re-run's trace hash 2{64} differs from the recorded 1{64}/,
    );
    expect(v.determinismBreak).not.toContain('records no digest');
    expect(v.note).toBeNull();
  });

  it('another trace after a change of code, or from an edited file, or a run that never finished: no break', () => {
    const changed = replayVerdict(RECORDED, run('2'.repeat(64)), () => ({ cetpSim: 'b'.repeat(64) }));
    expect([changed.determinismBreak, changed.note]).toEqual([
      null,
      'the trace differs from the recorded one, as expected: cetp-sim itself changed since the file was recorded',
    ]);
    const edited = { ...RECORDED, variant: { ...RECORDED.variant, disabledRules: ['CETP-6-01'] } };
    const v = replayVerdict(edited, run('2'.repeat(64)), () => CODE);
    expect([v.determinismBreak, v.note, v.edited]).toEqual([null, null, ['variant']]);
    expect(replayVerdict(RECORDED, run('', [], false), () => CODE).determinismBreak).toBeNull();
  });

  it('a file without digests or code: a break names the missing digests; unknown code is only a note', () => {
    const old = replayVerdict(FILE, run('2'.repeat(64)), () => CODE);
    expect(old.determinismBreak).toContain('records no digest of its inputs');
    const { code: _, ...noCode } = RECORDED;
    const unknown = replayVerdict(noCode, run('2'.repeat(64)), () => CODE);
    expect([unknown.determinismBreak, unknown.codeChanged]).toEqual([null, null]);
    expect(unknown.note).toContain('does not say what code it was recorded with');
  });
});
