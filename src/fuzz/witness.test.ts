/**
 * The witness of a campaign-wide verdict: a run whose calls the provider answered beats one whose
 * calls all failed for an unmet precondition, then the shortest run wins; and the committed note-5
 * replay (tool-never-succeeds) shows its mechanism — the lost reply, the 45-second gap and the
 * DEADLINE_EXCEEDED answers — as evidence events, not just the verdict.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../cli/main.ts';
import { memoryIo } from '../cli/testing.ts';
import { betterWitness, type WitnessCandidate } from './witness.ts';

const c = (fair: number, length: number): WitnessCandidate<string> => ({
  scenario: `${fair}/${length}`,
  fair,
  length,
});

describe('the witness of tool-never-succeeds', () => {
  it('prefers answered failures, then the shorter run, and keeps the first on a tie', () => {
    expect(betterWitness(c(1, 500), c(0, 50))).toBe(true);
    expect(betterWitness(c(0, 50), c(1, 500))).toBe(false);
    expect(betterWitness(c(2, 40), c(1, 60))).toBe(true);
    expect(betterWitness(c(1, 60), c(3, 60))).toBe(false);
  });

  it('the note-5 replay shows the lost reply, the 45 s gap and DEADLINE_EXCEEDED', async () => {
    const io = memoryIo();
    const file = 'spec/matrix/note05-p-first-c-original/matrix-deadline-passes-0.replay.json';
    expect(await main(['replay', file], io)).toBe(1);
    const text = io.stdout.join('\n');
    expect(text).toMatch(/tool-never-succeeds/);
    expect(text).toMatch(/ended [^\n]*DEADLINE_EXCEEDED ×\d+[^\n]*faults: [^\n]*loseReply/);
    const evidence = /evidence: trace events (#\d+(?:, #\d+)*)/.exec(text)?.[1] ?? '';
    const shown = evidence.split(', ').map((n) => n.slice(1));
    const line = (seq: string) => text.split('\n').find((l) => l.startsWith(`#${seq} `)) ?? '';
    const cause = shown.map(line);
    expect(cause.some((l) => /fault=\{"kind":"loseReply"/.test(l))).toBe(true);
    expect(cause.some((l) => /fault=\{"kind":"clockJump","ms":(4[5-9]|[5-9]\d)\d{3}\}/.test(l))).toBe(true);
    expect(cause.some((l) => /binder\.reply\.lost/.test(l))).toBe(true);
  }, 120_000);
});
