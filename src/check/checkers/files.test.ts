/**
 * file-result-matches judges the bytes behind a file result's descriptor as the world recorded them:
 * it fails on every hostile provider that lies about a file (size, digest, case of the digest, a
 * writable descriptor, a pipe whose writer dies half-way) and passes on the honest ones and on the
 * reference payments app's large results.
 */
import { describe, expect, it } from 'vitest';
import { ALERTS, PAYMENTS } from '../../fuzz/scenario/fixtures.ts';
import type { Command } from '../../fuzz/scenario/model.ts';
import { runScenario } from '../../fuzz/scenario/runner.ts';
import { HOSTILE_CASES } from '../../providers/hostile/cases.ts';
import { HOSTILE_PACKAGE } from '../../providers/hostile/manifest.ts';
import { readBounded, runHostile } from '../../providers/hostile/testing.ts';
import { observe } from '../observation.ts';
import { checkContext } from '../testing.ts';
import { fileResultMatches, fileResultsJudged } from './files.ts';
import { ALL_CHECKERS } from './index.ts';

const CTX = checkContext({ providersUnderTest: [HOSTILE_PACKAGE], hostile: [HOSTILE_PACKAGE] });

/** Runs hostile case `id`: a raw client negotiates, asks for a result and reads it (bounded), closing its fd. */
async function judgeHostile(id: string) {
  const hostileCase = HOSTILE_CASES.find((c) => c.id === id);
  if (!hostileCase) throw new Error(`no hostile case ${id}`);
  const run = await runHostile(hostileCase.behaviour, async (c) => {
    await c.negotiate();
    const reply = await c.execute('lookup', { query: 'statement' });
    const fd = reply.getParcelFileDescriptor('result_fd');
    if (!fd) throw new Error('no result_fd');
    await readBounded(c.ctx, fd, 8 * 1024 * 1024, 5_000);
    fd.close();
  });
  const obs = observe(run.world, run.report);
  return {
    messages: fileResultMatches.check(obs, CTX).map((v) => v.message),
    coverage: fileResultsJudged(obs, CTX.providersUnderTest),
  };
}

describe('file-result-matches (CETP-4.5-02, 4.5-03, 4.5-04)', () => {
  it.each([
    ['file-size-wrong', [/size_bytes 4097 but the descriptor holds 4096 bytes/]],
    ['file-much-larger-than-declared', [/size_bytes 1024 but the descriptor holds 4194304 bytes/]],
    ['file-sha256-wrong', [/sha256 "[0-9a-f]{64}" but the descriptor's bytes hash to/]],
    ['file-sha256-uppercase', [/sha256 "[0-9A-F]{64}" but the descriptor's bytes hash to/]],
    ['file-fd-writable', [/result_fd is not read-only \(mode rw\)/]],
    ['file-pipe-writer-dies', [/size_bytes 4096 but the descriptor holds 2048 bytes/, /sha256 .* hash to/]],
  ])('fails on the hostile case %s', async (id, expected) => {
    const { messages, coverage } = await judgeHostile(id);
    expect(messages).toHaveLength(expected.length);
    expected.forEach((pattern, i) => {
      expect(messages[i]).toMatch(pattern);
    });
    expect(coverage).toEqual({ judged: 1, notJudged: 0 });
  });

  it('passes on honest file results (a 2 MiB injection document with the right size and digest)', async () => {
    const { messages, coverage } = await judgeHostile('injection-in-file-result');
    expect(messages).toEqual([]);
    expect(coverage).toEqual({ judged: 1, notJudged: 0 });
  });

  it('does not judge the bytes of a pipe whose writer never closes (its content never ends)', async () => {
    const { messages, coverage } = await judgeHostile('file-pipe-never-eof');
    expect(messages).toEqual([]);
    expect(coverage).toEqual({ judged: 0, notJudged: 1 });
  });

  it('passes on the reference payments provider, whose statements exceed the inline limit', async () => {
    const exportStatement = (args: number): Command => ({
      kind: 'execute',
      provider: 'payments',
      tool: 'export_statement',
      args,
      rid: { kind: 'fresh' },
      expiredDeadline: false,
      confirmedFlag: false,
      resolve: 'honest',
      duplicates: 0,
    });
    const run = await runScenario(
      { providers: [ALERTS, PAYMENTS], actors: ['a'], checkers: ALL_CHECKERS },
      {
        seed: 7,
        tail: 'fifo',
        actors: {
          a: [
            { kind: 'negotiate', caps: ['async_operations', 'cancellation', 'large_results'] },
            exportStatement(1),
            exportStatement(2),
          ],
        },
        user: ['approve'],
        faults: [],
        decisions: [],
      },
      { providerBugs: [], consumerBugs: [], disabledRules: [] },
    );
    expect(run.violations).toEqual([]);
    const coverage = fileResultsJudged(run.observation, run.context.providersUnderTest);
    expect(coverage.judged).toBeGreaterThanOrEqual(1);
    expect(coverage.notJudged).toBe(0);
  });
});
