/**
 * A read sent before a request_id was bound to a write may be answered after it.
 *
 * Found by a fuzz campaign (`fuzz --seed 777001`, idempotency): an agent read a quote under request
 * id R, a late duplicate of that read was still in flight when the agent reused R for create_alert,
 * and the provider answered the read (checked before the write reserved R: reads are not recorded)
 * just before it accepted the write. args-binding walked the calls in the order they were *made*,
 * so the read — sent after the write — looked like "R, bound to create_alert, answered for another
 * tool". It now walks them in the order they were *answered*: writes are held to the binding
 * whatever the timing (each reserves R, so two can never both pass), a read only once it was sent
 * after the binding had been answered.
 *
 * The run was re-found after the sim's process start took virtual time (100 ms, providers published
 * before Application.onCreate): the same commands under another PCT seed. It fails with args-binding
 * walking the calls in the order they were made.
 */
import { describe, expect, it } from 'vitest';
import { argsBinding } from '../src/check/checkers/wire.ts';
import type { Observation } from '../src/check/observation.ts';
import { checkContext } from '../src/fuzz/scenario/fixtures.ts';
import type { Scenario } from '../src/fuzz/scenario/model.ts';
import { REFERENCE } from '../src/fuzz/scenario/model.ts';
import { type Fixture, runScenario } from '../src/fuzz/scenario/runner.ts';
import { PROPERTIES } from '../src/fuzz/suites.ts';

const FOUND: Scenario = {
  seed: 365116,
  tail: 'pct',
  actors: {
    a: [
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'create_alert',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 0,
      },
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'get_quote',
        args: 0,
        rid: {
          kind: 'fresh',
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 1,
      },
      {
        kind: 'execute',
        provider: 'alerts',
        tool: 'create_alert',
        args: 0,
        rid: {
          kind: 'reuse',
          index: 3,
        },
        expiredDeadline: false,
        confirmedFlag: false,
        resolve: 'honest',
        duplicates: 1,
      },
    ],
    b: [
      {
        kind: 'wait',
        ms: 500,
      },
    ],
  },
  user: [],
  faults: [],
  decisions: [],
};

function idempotencyFixture(): Fixture {
  const p = PROPERTIES.find((x) => x.id === 'idempotency');
  if (p?.kind !== 'raw') throw new Error('the idempotency property drives the raw driver');
  return p.fixture;
}

describe('args-binding and reads racing a write under the same request_id', () => {
  it('CETP-6-03 CETP-6-04: a read answered just before the write bound its request_id is no violation', async () => {
    const run = await runScenario(idempotencyFixture(), FOUND, REFERENCE);
    const rid = run.observation.calls.find((c) => c.toolName === 'get_quote')?.requestId;
    const underRid = run.observation.calls.filter((c) => c.requestId === rid);
    // What the finding says: the last get_quote is sent after the first create_alert under the same
    // request_id, and answered (success) before the create_alert is.
    const read = underRid.filter((c) => c.toolName === 'get_quote').at(-1);
    const write = underRid.find((c) => c.toolName === 'create_alert');
    if (!read || !write || read.replyStep === null || write.replyStep === null)
      throw new Error('the found run has both calls, answered');
    expect(read.step).toBeGreaterThan(write.step);
    expect(read.replyStep).toBeLessThan(write.replyStep);
    expect(read.reply.kind === 'bundle' && read.reply.status).toBe('success');
    expect(run.violations).toEqual([]);
  });

  it('CETP-6-03 CETP-6-04: a read sent after the binding was answered, and answered with success, is flagged', async () => {
    const fixture = idempotencyFixture();
    const run = await runScenario(fixture, FOUND, REFERENCE);
    // The same run, but the racing read made after the write had been answered (as if sent later).
    const lateRead = run.observation.calls.filter((c) => c.toolName === 'get_quote').at(-1);
    const write = run.observation.calls.find(
      (c) => c.toolName === 'create_alert' && c.requestId === lateRead?.requestId,
    );
    if (!write?.replyStep || !lateRead) throw new Error('the found run has both calls');
    const shifted = Object.assign({}, lateRead, {
      step: write.replyStep + 1,
      replyStep: write.replyStep + 2,
    });
    const calls = run.observation.calls.map((c) => (c === lateRead ? shifted : c));
    const tampered: Observation = Object.assign({}, run.observation, { calls, memo: new Map() });
    const found = argsBinding.check(tampered, checkContext(fixture.providers, { consumers: [] }));
    expect(found.map((v) => v.message)).toEqual([
      expect.stringMatching(/bound to create_alert, was answered success for other tool\/args/),
    ]);
  });
});
