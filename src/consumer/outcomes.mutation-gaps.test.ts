/**
 * More gaps in the consumer's execution engine and retry discipline (execution.ts, retry.ts) that
 * the mutation run (npm run mutation, docs/notes/mutation.md) showed no test noticed: the outcome of each
 * terminal error code (CANCELLED, RESULT_EXPIRED, RESULT_TOO_LARGE with and without a committed
 * outcome), the renegotiation bound and a tool gone after renegotiation (NOTES 8b), a resolution
 * that cannot be launched (4.3-12), a refused resume token and what follows it (NOTES 2), the
 * no-loop codes holding on their own (5-28), the journal keeping an accepted operation (6-08), and
 * the consumer's thread surviving its agent's callback. Scripted providers; virtual time.
 */
import { describe, expect, it } from 'vitest';
import { Intent } from '../sim/ui/intent.ts';
import { FLAG_CANCEL_CURRENT, FLAG_IMMUTABLE } from '../sim/ui/pending-intent.ts';
import { executes, needsConfirmation, ok, READ, scripted, WRITE } from './gaps.testing.ts';
import { JOURNAL_TABLE } from './journal.ts';
import * as kit from './testing.ts';

describe('the outcome of each terminal error', () => {
  for (const [code, kind] of [
    ['CANCELLED', 'cancelled'],
    ['RESULT_EXPIRED', 'result_expired'],
    ['USER_CANCELLED', 'user_cancelled'],
  ] as const) {
    it(`CETP-5-20 CETP-5-22 CETP-5-10: ${code} from execute_tool ends the execution as ${kind}, not re-sent`, async () => {
      const world = scripted((c) =>
        c.method === 'execute_tool' ? kit.errorReply(c.requestId, code, { retryable: false }) : undefined,
      );
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value).toMatchObject({ kind });
      expect(executes(world)).toHaveLength(1);
    });
  }

  for (const [detail, committed] of [
    [{ outcome_committed: true, inline_limit_bytes: 262_144 }, true],
    [{ outcome_committed: false, inline_limit_bytes: 262_144 }, false],
    [undefined, false],
  ] as const) {
    it(`CETP-4.5-11 CETP-5-21 NOTES-12a: RESULT_TOO_LARGE with details ${JSON.stringify(detail ?? null)} is result_too_large, committed=${committed}`, async () => {
      const world = scripted((c) =>
        c.method === 'execute_tool'
          ? kit.errorReply(c.requestId, 'RESULT_TOO_LARGE', {
              retryable: false,
              ...(detail ? { details: detail } : {}),
            })
          : undefined,
      );
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value).toEqual(expect.objectContaining({ kind: 'result_too_large', committed }));
      expect(executes(world)).toHaveLength(1);
    });
  }
});

describe('NOTES-8b: NEGOTIATION_REQUIRED during an execution', () => {
  const stale = (c: kit.ScriptedCall) =>
    c.method === 'execute_tool'
      ? kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true })
      : undefined;

  for (const max of [0, 1, 2]) {
    it(`CETP-5-07 CETP-4.1-04: a provider that always answers NEGOTIATION_REQUIRED gets ${max} renegotiation(s), each followed by a same-id retry, then the write is outcome_unknown (renegotiation_limit)`, async () => {
      const world = scripted(stale, { retry: { maxRenegotiations: max } });
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value).toMatchObject({ kind: 'outcome_unknown', reason: 'renegotiation_limit' });
      expect(executes(world)).toHaveLength(max + 1);
      expect(kit.consumerCalls(world).filter((c) => c.method === 'negotiate')).toHaveLength(max + 1);
      expect(new Set(executes(world).map((c) => c.extras?.getString('request_id'))).size).toBe(1);
      expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual([
        'first',
        ...Array.from({ length: max }, () => 'retry'),
      ]);
    });
  }

  it('CETP-5-07: a read that meets the renegotiation limit is a temporary unavailability', async () => {
    const world = scripted(stale, { retry: { maxRenegotiations: 1 } });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'lookup', {}));
    expect(value).toMatchObject({ kind: 'provider_unavailable', temporary: true });
  });

  it('CETP-5-07 CETP-6-08: after one NEGOTIATION_REQUIRED the renegotiated session carries the same request to success', async () => {
    const world = scripted((c) => (c.method === 'execute_tool' ? (c.n === 1 ? stale(c) : ok(c)) : undefined));
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'ok', untrusted: { value: { n: 2 } } });
    expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual(['first', 'retry']);
    const [first, second] = executes(world);
    expect(second?.extras?.getString('request_id')).toBe(first?.extras?.getString('request_id'));
    expect(second?.extras?.getString('session_token')).not.toBe(first?.extras?.getString('session_token'));
  });

  it('CETP-5-12 NOTES-8b: a tool the renegotiated list no longer has ends as tool_not_found, never re-sent', async () => {
    const world = scripted((c) => {
      if (c.method === 'list_tools' && c.n > 1)
        return kit.success(c.requestId, { revision: 'rev-2', tools: [READ] });
      return stale(c);
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'tool_not_found' });
    expect(executes(world)).toHaveLength(1);
  });

  it('NOTES-8b CETP-6-08: a renegotiation answered UNAVAILABLE ends the write that reached the provider as outcome_unknown with that reason', async () => {
    const world = kit.consumerWorld({
      providers: [],
      consumer: { retry: { maxRetries: 0, baseBackoffMs: 1 } },
    });
    kit.installScripted(world, {
      tools: [WRITE],
      answer: (c) => {
        if (c.method === 'negotiate' && c.n > 1)
          return kit.errorReply('', 'UNAVAILABLE', { retryable: true });
        return stale(c);
      },
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'outcome_unknown', reason: 'negotiate_UNAVAILABLE' });
    expect(executes(world)).toHaveLength(1);
    // The first session, then one renegotiation: the execution ends there, no further attempt.
    expect(kit.consumerCalls(world).filter((c) => c.method === 'negotiate')).toHaveLength(2);
  });
});

describe('CETP-4.3-12: a resolution that cannot be launched', () => {
  it('CETP-7.2-05 CETP-4.3-02: a resolution naming an Activity that does not exist is refused (not explicit) before any launch', async () => {
    const world = scripted((c) =>
      c.method === 'execute_tool' ? needsConfirmation(c, 'NoSuchActivity') : undefined,
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'confirmed', {}));
    expect(value).toMatchObject({ kind: 'refused_resolution', reason: 'not_explicit' });
    expect(executes(world)).toHaveLength(1);
    expect(world.trace.ofKind('pi.send').filter((e) => e.data.from === kit.CONSUMER)).toEqual([]);
  });

  it('CETP-4.3-12 CETP-4.3-07: a verified resolution that cannot be launched (cancelled by its creator) is refused_resolution; no resume is sent', async () => {
    const world = scripted((c) => {
      if (c.method !== 'execute_tool') return undefined;
      const reply = needsConfirmation(c);
      // The provider replaces the PendingIntent it just sent (FLAG_CANCEL_CURRENT): the one the
      // consumer holds is verified (explicit, immutable, the provider's own) but cancelled.
      c.context.getActivityPendingIntent(
        c.n,
        Intent.explicit(kit.SCRIPTED_PACKAGE, kit.SCRIPTED_ACTIVITY, { data: `confirm://${c.n}` }),
        FLAG_IMMUTABLE | FLAG_CANCEL_CURRENT,
      );
      return reply;
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'confirmed', {}));
    expect(value).toMatchObject({ kind: 'refused_resolution', reason: 'IntentSender$SendIntentException' });
    expect(executes(world)).toHaveLength(1);
    expect(executes(world).some((c) => c.extras?.containsKey('resume_token'))).toBe(false);
  });
});

describe('NOTES-2: a refused resume token', () => {
  it('CETP-4.3-07 CETP-5-26: a first resume answered INVALID_REQUEST ends as rejected; the consumer does not ask again without the token', async () => {
    const world = scripted((c) =>
      c.method === 'execute_tool'
        ? c.n === 1
          ? needsConfirmation(c)
          : kit.errorReply(c.requestId, 'INVALID_REQUEST', { retryable: false, message: 'Bad token.' })
        : undefined,
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'confirmed', {}));
    expect(value).toMatchObject({ kind: 'rejected', code: 'INVALID_REQUEST' });
    const calls = executes(world);
    expect(calls.map((c) => c.extras?.getString('resume_token') ?? null)).toEqual([null, 'token-1']);
  });

  it('NOTES-2 CETP-6-08: a re-sent token (after a lost reply) refused with INVALID_REQUEST is followed by one same-id query without the token', async () => {
    const world = scripted((c) => {
      if (c.method !== 'execute_tool') return undefined;
      if (c.n === 1) return needsConfirmation(c);
      if (c.n === 2) return null;
      if (c.n === 3) return kit.errorReply(c.requestId, 'INVALID_REQUEST', { retryable: false });
      return ok(c);
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'confirmed', {}));
    expect(value).toMatchObject({ kind: 'ok' });
    expect(executes(world).map((c) => c.extras?.getString('resume_token') ?? null)).toEqual([
      null,
      'token-1',
      'token-1',
      null,
    ]);
    expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual([
      'first',
      'resume',
      'retry',
      'query',
    ]);
  });

  it('NOTES-2 CETP-5-26: a re-sent token answered with another non-retryable error ends with that error; no query', async () => {
    const world = scripted((c) => {
      if (c.method !== 'execute_tool') return undefined;
      if (c.n === 1) return needsConfirmation(c);
      if (c.n === 2) return null;
      return kit.errorReply(c.requestId, 'CONFLICT', { retryable: false, message: 'Taken.' });
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'confirmed', {}));
    expect(value).toMatchObject({ kind: 'rejected', code: 'CONFLICT' });
    expect(executes(world)).toHaveLength(3);
  });
});

describe('CETP-5-28 holds on its own', () => {
  for (const code of ['PERMISSION_DENIED', 'INVALID_ARGS', 'AUTH_REQUIRED', 'USER_ACTION_REQUIRED']) {
    it(`CETP-5-28: ${code} claimed retryable is never re-sent, even with CETP-5-26 ablated`, async () => {
      const world = scripted(
        (c) =>
          c.method === 'execute_tool' ? kit.errorReply(c.requestId, code, { retryable: true }) : undefined,
        { disabledRules: ['CETP-5-26'], retry: { baseBackoffMs: 1 } },
      );
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value).toMatchObject({ kind: 'rejected', code });
      expect(executes(world)).toHaveLength(1);
    });
  }

  it('CETP-5-26 ablated: a plain retryable=false error is re-sent (what the ablation switches off)', async () => {
    const world = scripted(
      (c) =>
        c.method === 'execute_tool'
          ? kit.errorReply(c.requestId, 'CONFLICT', { retryable: false })
          : undefined,
      { disabledRules: ['CETP-5-26'], retry: { baseBackoffMs: 1, maxRetries: 2 } },
    );
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value).toMatchObject({ kind: 'rejected', code: 'CONFLICT' });
    expect(executes(world)).toHaveLength(3);
  });
});

describe('CETP-6-08: the journal of an async write', () => {
  it('CETP-6-08 CETP-4.4-03: the journal keeps the operation an accepted write was given, and marks the execution done', async () => {
    const world = scripted((c) => {
      if (c.method === 'execute_tool') return kit.accepted(c.requestId, 'op_7', 100);
      if (c.method === 'get_operation')
        return kit.success(c.requestId, {
          operation_id: 'op_7',
          state: 'succeeded',
          result: { kind: 'inline', value: {} },
        });
      return undefined;
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'job', {}));
    expect(value.kind).toBe('ok');
    const entries = [...world.storage(kit.CONSUMER).snapshot(JOURNAL_TABLE).values()];
    expect(entries).toEqual([
      expect.objectContaining({ tool: 'job', operationId: 'op_7', state: 'done', outcome: 'ok' }),
    ]);
  });
});

describe('the consumer’s thread survives its own agent', () => {
  it('CETP-4.4-09: a progress callback that throws ends the execution as invalid_response (consumer_error), logged; the agent goes on', async () => {
    const world = scripted((c) => {
      if (c.method === 'execute_tool') return kit.accepted(c.requestId, 'op_1', 100);
      if (c.method === 'get_operation')
        return kit.success(
          c.requestId,
          c.n === 1
            ? { operation_id: 'op_1', state: 'running', progress: { current: 1, total: 2 } }
            : { operation_id: 'op_1', state: 'succeeded', result: { kind: 'inline', value: {} } },
        );
      return undefined;
    });
    const { value } = await kit.runConsumer(world, async (b) => [
      await b.execute(
        kit.SCRIPTED_PACKAGE,
        'job',
        {},
        {
          onProgress: () => {
            throw new Error('agent bug');
          },
        },
      ),
      await b.execute(kit.SCRIPTED_PACKAGE, 'lookup', {}),
    ]);
    expect(value[0]).toMatchObject({ kind: 'invalid_response', issues: ['consumer_error'] });
    expect(value[1]?.kind).toBe('ok');
    expect(
      world.trace
        .ofKind('log')
        .filter(
          (l) =>
            l.data.tag === 'CetpConsumer' &&
            l.data.level === 'E' &&
            String(l.data.message).includes('agent bug'),
        ),
    ).toHaveLength(1);
  });
});
