/**
 * Gaps in the consumer's execution engine and retry discipline (execution.ts, retry.ts) that the
 * mutation run (npm run mutation, docs/notes/mutation.md) showed no test noticed: the exponential backoff
 * itself (5-27), its cap and the retry bounds, retry_after_ms against the backoff, and a send that
 * cannot connect in the middle of an execution. Times are the simulation's virtual clock.
 */
import { describe, expect, it } from 'vitest';
import type { Bundle } from '../sim/binder/bundle.ts';
import type { World } from '../sim/world.ts';
import { executes, READ, WRITE } from './gaps.testing.ts';
import type { RetryOptions } from './options.ts';
import type { ToolOutcome } from './outcomes.ts';
import * as kit from './testing.ts';

/** Virtual time between consecutive execute_tool calls. */
function gaps(world: World): number[] {
  const ts = executes(world).map((c) => c.t);
  return ts.slice(1).map((t, i) => t - (ts[i] as number));
}

function scripted(
  script: (c: kit.ScriptedCall) => Bundle | null | undefined,
  retry: Partial<RetryOptions> = {},
  more: { negotiate?: (n: number) => Bundle | undefined } = {},
) {
  const world = kit.consumerWorld({ providers: [], consumer: { retry } });
  let negotiations = 0;
  kit.installScripted(world, {
    tools: [WRITE, READ],
    answer: (c) => {
      if (c.method === 'negotiate') return more.negotiate?.(++negotiations);
      return c.method === 'execute_tool' ? script(c) : undefined;
    },
  });
  return world;
}

const ok = (c: kit.ScriptedCall) => kit.success(c.requestId, { kind: 'inline', value: { n: c.n } });
const unavailable = (c: kit.ScriptedCall, retryAfterMs?: number) =>
  kit.errorReply(c.requestId, 'UNAVAILABLE', {
    retryable: true,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });

/** The latency of one round trip to the scripted provider (a reply with no retry in between). */
async function roundTrip(): Promise<number> {
  const world = scripted(ok);
  await kit.runConsumer(world, async (b) => {
    await b.execute(kit.SCRIPTED_PACKAGE, 'write', {});
    await b.execute(kit.SCRIPTED_PACKAGE, 'write', {});
  });
  const [gap] = gaps(world);
  return gap as number;
}

describe('CETP-5-27: the backoff is exponential, capped, and never shorter than retry_after_ms', () => {
  it('CETP-5-27 CETP-5-26: retryable errors are re-sent after base·2^k, capped at maxBackoffMs', async () => {
    const rtt = await roundTrip();
    const world = scripted((c) => (c.n <= 4 ? unavailable(c) : ok(c)), {
      baseBackoffMs: 100,
      maxBackoffMs: 400,
      maxRetries: 4,
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'ok', untrusted: { value: { n: 5 } } });
    expect(gaps(world).map((g) => g - rtt)).toEqual([100, 200, 400, 400]);
    expect(new Set(executes(world).map((c) => c.extras?.getString('request_id'))).size).toBe(1);
    expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual([
      'first',
      'retry',
      'retry',
      'retry',
      'retry',
    ]);
  });

  it('CETP-5-27 CETP-6-08: transport failures (null replies) back off exponentially too', async () => {
    const rtt = await roundTrip();
    const world = scripted((c) => (c.n <= 3 ? null : ok(c)), { baseBackoffMs: 50, maxBackoffMs: 10_000 });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('ok');
    expect(gaps(world).map((g) => g - rtt)).toEqual([50, 100, 200]);
  });

  it('CETP-5-27: the wait is the larger of retry_after_ms and the backoff', async () => {
    const rtt = await roundTrip();
    // 1st: retry_after 30 < backoff 100; 2nd: retry_after 1000 > backoff 200.
    const world = scripted(
      (c) => (c.n === 1 ? unavailable(c, 30) : c.n === 2 ? unavailable(c, 1_000) : ok(c)),
      {
        baseBackoffMs: 100,
        maxBackoffMs: 10_000,
      },
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('ok');
    expect(gaps(world).map((g) => g - rtt)).toEqual([100, 1_000]);
  });

  it('CETP-5-27: a retry_after_ms exactly at the consumer’s patience is waited for; one more ms is not', async () => {
    const rtt = await roundTrip();
    const patient = scripted((c) => (c.n === 1 ? unavailable(c, 2_000) : ok(c)), {
      baseBackoffMs: 10,
      maxRetryAfterMs: 2_000,
    });
    const a = await kit.runConsumer(patient, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(a.value.kind).toBe('ok');
    expect(gaps(patient).map((g) => g - rtt)).toEqual([2_000]);

    const impatient = scripted((c) => unavailable(c, 2_001), { baseBackoffMs: 10, maxRetryAfterMs: 2_000 });
    const b = await kit.runConsumer(impatient, (br) => br.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(b.value).toMatchObject({ kind: 'provider_unavailable', temporary: true, retryAfterMs: 2_001 });
    expect(executes(impatient)).toHaveLength(1);
  });
});

describe('bounded re-sends', () => {
  it('CETP-5-26: maxRetries re-sends, then a temporary unavailability that carries the last retry_after_ms', async () => {
    const world = scripted((c) => unavailable(c, 20), { maxRetries: 2, baseBackoffMs: 1 });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'provider_unavailable', temporary: true, retryAfterMs: 20 });
    expect(executes(world)).toHaveLength(3);
  });

  it('CETP-5-26: exhausted without a retry_after_ms: temporary unavailability, no retryAfterMs', async () => {
    const world = scripted((c) => unavailable(c), { maxRetries: 1, baseBackoffMs: 1 });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'provider_unavailable', temporary: true });
    expect(value).not.toHaveProperty('retryAfterMs');
    expect(executes(world)).toHaveLength(2);
  });

  it('CETP-6-08: with maxRetries 0 a lost reply is not re-sent: a write is outcome_unknown, a read unavailable', async () => {
    const world = scripted(() => null, { maxRetries: 0 });
    const { value } = await kit.executeScripted(world, 'write', 'lookup');
    expect(value[0]).toMatchObject({ kind: 'outcome_unknown', reason: 'transport_null' });
    expect(value[1]).toMatchObject({ kind: 'provider_unavailable', temporary: true });
    expect(executes(world)).toHaveLength(2);
  });

  it('CETP-5-26: a non-retryable error after retryable ones ends with that error, not as unavailability', async () => {
    const world = scripted((c) =>
      c.n === 1
        ? unavailable(c)
        : kit.errorReply(c.requestId, 'CONFLICT', { retryable: false, message: 'Taken.' }),
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'rejected', code: 'CONFLICT' });
    expect(executes(world)).toHaveLength(2);
  });
});

describe('a send that cannot connect in the middle of an execution', () => {
  /**
   * The first call is answered NEGOTIATION_REQUIRED; the renegotiation then fails, so the re-send
   * never leaves the consumer. Whether the first call may have reached the provider decides between
   * "unknown" and "unavailable".
   */
  for (const [negotiation, temporary] of [
    ['UNAVAILABLE', true],
    ['UNSUPPORTED_VERSION', false],
  ] as const) {
    it(`NOTES-8b CETP-6-08: renegotiation answered ${negotiation}: a write that reached the provider is outcome_unknown`, async () => {
      const world = scripted(
        (c) => kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true }),
        { maxRetries: 1, baseBackoffMs: 1, maxRenegotiations: 2 },
        {
          negotiate: (n) =>
            n === 1
              ? undefined
              : kit.errorReply('', negotiation, { retryable: negotiation === 'UNAVAILABLE' }),
        },
      );
      const { value } = await kit.executeScripted(world, 'write', 'lookup');
      expect(value[0]).toMatchObject({ kind: 'outcome_unknown' });
      expect(value[1]).toMatchObject({ kind: 'provider_unavailable', temporary });
      expect(executes(world)).toHaveLength(1);
    });
  }

  it('CETP-6-08: a re-send that cannot connect (another call’s renegotiation failed meanwhile): the write that reached the provider is outcome_unknown', async () => {
    let writes = 0;
    const world = scripted(
      (c) => {
        if (c.extras.getString('tool_name') === 'write') return ++writes === 1 ? unavailable(c) : ok(c);
        return kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true });
      },
      { baseBackoffMs: 1_000, maxRenegotiations: 1 },
      {
        negotiate: (n) =>
          n === 1 ? undefined : kit.errorReply('', 'UNSUPPORTED_VERSION', { retryable: false }),
      },
    );
    const outcomes = new Map<string, ToolOutcome>();
    await kit.runConsumer(world, async (b, ctx) => {
      // Two threads of the agent: the write backs off while the lookup's renegotiation fails.
      for (const tool of ['write', 'lookup']) {
        ctx.spawn(tool, async () => {
          outcomes.set(tool, await b.execute(kit.SCRIPTED_PACKAGE, tool, {}));
        });
      }
    });
    expect(outcomes.get('write')).toMatchObject({
      kind: 'outcome_unknown',
      reason: 'negotiate_UNSUPPORTED_VERSION',
    });
    expect(outcomes.get('lookup')).toMatchObject({ kind: 'provider_unavailable', temporary: false });
    // The write was sent once (UNAVAILABLE); its re-send never left the consumer.
    expect(
      executes(world)
        .map((c) => c.extras?.getString('tool_name'))
        .sort(),
    ).toEqual(['lookup', 'write']);
    expect(kit.consumerCalls(world).filter((c) => c.method === 'negotiate')).toHaveLength(2);
  });

  it('CETP-6-08: a write whose every send was refused (the provider was uninstalled) never reached it: provider_unavailable, not outcome_unknown', async () => {
    const world = scripted(ok, { baseBackoffMs: 1, maxRetries: 2 });
    const { value } = await kit.runConsumer(world, async (b) => {
      const first = await b.execute(kit.SCRIPTED_PACKAGE, 'write', {});
      world.uninstall(kit.SCRIPTED_PACKAGE);
      // The first call after the uninstall meets the dead Binder (it may have reached the provider).
      const died = await b.execute(kit.SCRIPTED_PACKAGE, 'write', {});
      // Every send of the next one is refused: it never reached the provider.
      return [first, died, await b.execute(kit.SCRIPTED_PACKAGE, 'write', {})];
    });
    expect(value[0]?.kind).toBe('ok');
    expect(value[1]).toMatchObject({ kind: 'outcome_unknown', reason: 'transport_refused' });
    expect(value[2]).toMatchObject({ kind: 'provider_unavailable', temporary: true });
    expect(executes(world).map((c) => c.result?.kind)).toEqual(['reply', 'exception']);
  });
});
