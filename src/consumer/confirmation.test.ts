/**
 * Confirmation and authorization resolutions from the consumer's side (spec §4.3, §7.2, §1), and
 * the consumer's own approval, which never replaces the provider's.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_CASES, HOSTILE_PACKAGE, installHostile } from '../providers/hostile/index.ts';
import { Intent } from '../sim/ui/intent.ts';
import { FLAG_IMMUTABLE } from '../sim/ui/pending-intent.ts';
import type { World } from '../sim/world.ts';
import { APPROVAL_ACTIVITY } from './confirmation.ts';
import * as kit from './testing.ts';

/** USER_ACTION_REQUIRED with the scripted provider's own explicit, immutable resolution. */
function needsConfirmation(c: kit.ScriptedCall, token = `token-${c.n}`) {
  const pi = c.context.getActivityPendingIntent(
    c.n,
    Intent.explicit(kit.SCRIPTED_PACKAGE, kit.SCRIPTED_ACTIVITY, { data: `confirm://${c.n}` }),
    FLAG_IMMUTABLE,
  );
  const reply = kit.errorReply(c.requestId, 'USER_ACTION_REQUIRED', { retryable: false, resumeToken: token });
  reply.putPendingIntent('resolution', pi);
  return reply;
}

const WRITE = kit.toolDescriptor('write', {}, { effect: 'update', risk: 'moderate', confirmation: 'always' });

function resultSteps(world: World): number[] {
  return world.trace
    .ofKind('activity.result')
    .filter((e) => e.data.to === kit.CONSUMER)
    .map((e) => e.step);
}

describe('resolutions', () => {
  it('CETP-4.3-07 CETP-8-05: each resume re-sends the same request_id, tool_name and args bytes with the resume_token just received', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'], world: kit.approvingUser(2) });
    const { value } = await kit.runConsumer(world, (b) =>
      b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 }),
    );
    expect(value.kind).toBe('ok');
    const calls = kit.consumerCalls(world, kit.ALERTS_PACKAGE).filter((c) => c.method === 'execute_tool');
    expect(calls).toHaveLength(3);
    const [first] = calls;
    for (const [i, call] of calls.entries()) {
      for (const key of ['request_id', 'tool_name', 'args']) {
        expect(call.extras?.getString(key)).toBe(first?.extras?.getString(key));
      }
      if (i === 0) {
        expect(call.extras?.containsKey('resume_token')).toBe(false);
        continue;
      }
      const previous = calls[i - 1]?.result;
      const token = previous?.kind === 'reply' ? previous.reply?.getString('resume_token') : null;
      expect(call.extras?.getString('resume_token')).toBe(token);
    }
  });

  it('CETP-4.3-12: every resume is sent only after the resolution’s Activity result was delivered', async () => {
    const world = kit.consumerWorld({ providers: ['payments'], world: kit.approvingUser(2) });
    await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid)),
    );
    const resumes = kit
      .consumerCalls(world, kit.PAYMENTS_PACKAGE)
      .filter((c) => c.extras?.containsKey('resume_token'));
    const results = resultSteps(world);
    expect(resumes).toHaveLength(2);
    expect(results).toHaveLength(2);
    resumes.forEach((call, i) => {
      expect(call.step).toBeGreaterThan(results[i] as number);
    });
  });

  it('CETP-4.3-16: no implicit authorize_intent — every launch is a verified PendingIntent created by the provider', async () => {
    const world = kit.consumerWorld({ providers: ['alerts', 'payments'], world: kit.approvingUser(4) });
    await kit.runConsumer(world, async (b, ctx) => {
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 });
      await b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid));
    });
    expect(JSON.stringify(world.trace.events)).not.toContain('authorize_intent');
    const sends = world.trace.ofKind('pi.send').filter((e) => e.data.from === kit.CONSUMER);
    expect(sends.length).toBe(4);
    expect(
      sends.every((e) => e.data.creator === kit.ALERTS_PACKAGE || e.data.creator === kit.PAYMENTS_PACKAGE),
    ).toBe(true);
    const starts = world.trace.ofKind('activity.start').filter((e) => e.data.from === kit.CONSUMER);
    expect(starts.every((e) => e.data.via === 'pendingIntent')).toBe(true);
  });

  for (const id of [
    'resolution-mutable-pending-intent',
    'resolution-implicit-pending-intent',
    'resolution-relayed-pending-intent',
  ]) {
    it(`CETP-4.3-02 CETP-7.2-04 CETP-7.2-05 (verified by the consumer): ${id} is refused, never launched`, async () => {
      const world = kit.consumerWorld({ providers: [], world: kit.approvingUser(2) });
      installHostile(world, (HOSTILE_CASES.find((c) => c.id === id) ?? { behaviour: {} }).behaviour);
      const { value, report } = await kit.runConsumer(world, (b) =>
        b.execute(HOSTILE_PACKAGE, 'lookup', { query: 'x' }),
      );
      expect(value.kind).toBe('refused_resolution');
      expect(world.trace.ofKind('pi.send').filter((e) => e.data.from === kit.CONSUMER)).toEqual([]);
      expect(world.user.screensSeen).toEqual([]);
      expect(
        kit.consumerCalls(world, HOSTILE_PACKAGE).filter((c) => c.method === 'execute_tool'),
      ).toHaveLength(1);
      expect(report.fdLeaks).toEqual([]);
    });
  }

  it('CETP-5-28: a provider that asks again and again gets a bounded number of launches, each followed by its result', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      tools: [WRITE],
      answer: (c) => (c.method === 'execute_tool' ? needsConfirmation(c) : undefined),
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('user_action_loop');
    const calls = kit.consumerCalls(world).filter((c) => c.method === 'execute_tool');
    expect(calls).toHaveLength(5);
    const results = resultSteps(world);
    expect(results).toHaveLength(4);
    calls.slice(1).forEach((call, i) => {
      expect(call.step).toBeGreaterThan(results[i] as number);
    });
  });

  for (const resend of [true, false]) {
    it(`CETP-4.1-07 (variant resendResumeToken=${resend}, interpretations.md): a retry of the resume call ${resend ? 're-sends' : 'omits'} the token`, async () => {
      const world = kit.consumerWorld({
        providers: [],
        consumer: { variants: { resendResumeToken: resend } },
      });
      kit.installScripted(world, {
        tools: [WRITE],
        answer: (c) => {
          if (c.method !== 'execute_tool') return undefined;
          if (c.n === 1) return needsConfirmation(c, 'T1');
          if (c.n === 2) return kit.errorReply(c.requestId, 'UNAVAILABLE', { retryable: true });
          return kit.success(c.requestId, { kind: 'inline', value: {} });
        },
      });
      const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value.kind).toBe('ok');
      const tokens = kit
        .consumerCalls(world)
        .filter((c) => c.method === 'execute_tool')
        .map((c) => c.extras?.getString('resume_token') ?? null);
      expect(tokens).toEqual([null, 'T1', resend ? 'T1' : null]);
    });
  }

  it('NOTES 2: the reply to a resume is lost and the provider refuses the re-sent (consumed) token; the consumer asks again without it', async () => {
    const world = kit.consumerWorld({ providers: [] });
    kit.installScripted(world, {
      tools: [WRITE],
      answer: (c) => {
        if (c.method !== 'execute_tool') return undefined;
        if (c.n === 1) return needsConfirmation(c, 'T1');
        if (c.n === 2) return null; // the resume's reply is lost
        if (c.n === 3)
          return kit.errorReply(c.requestId, 'INVALID_REQUEST', {
            retryable: false,
            message: 'Token already used.',
          });
        return kit.success(c.requestId, { kind: 'inline', value: { done: true } });
      },
    });
    const { value } = await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
    expect(value.kind).toBe('ok');
    const exec = kit.consumerCalls(world).filter((c) => c.method === 'execute_tool');
    expect(exec.map((c) => c.extras?.getString('resume_token') ?? null)).toEqual([null, 'T1', 'T1', null]);
    expect(kit.auditEvents(world, 'execution.attempt').map((e) => e.reason)).toEqual([
      'first',
      'resume',
      'retry',
      'query',
    ]);
    expect(new Set(exec.map((c) => c.extras?.getString('request_id'))).size).toBe(1);
  });

  it('NOTES 2 with the reference provider: a lost reply to the scope-grant resume still ends in one effect', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'], world: kit.approvingUser(3) });
    world.spawn('lose the reply to the first resume', async () => {
      while (world.user.screensSeen.length < 1) await world.scheduler.sleep(10);
      world.applyFault({ kind: 'loseReply', callee: kit.ALERTS_PACKAGE, caller: kit.CONSUMER });
    });
    const { value, report } = await kit.runConsumer(world, (b) =>
      b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 }),
    );
    expect(value.kind).toBe('ok');
    const exec = kit.consumerCalls(world, kit.ALERTS_PACKAGE).filter((c) => c.method === 'execute_tool');
    expect(exec[1]?.result).toMatchObject({ kind: 'exception', exception: 'DeadObjectException' });
    expect(new Set(exec.map((c) => c.extras?.getString('request_id'))).size).toBe(1);
    expect(kit.effectNotes(world)).toHaveLength(1);
    expect(report.fdLeaks).toEqual([]);
  });

  it('a consumer restarted while the user decides picks the execution up again without asking twice; one effect', async () => {
    const world = kit.consumerWorld({ providers: ['alerts'], world: kit.approvingUser(3) });
    kit.restartConsumer(world, {
      name: 'kill the consumer during the confirmation',
      ready: () => world.user.screensSeen.length >= 2,
      pollMs: 10,
      downMs: 5_000,
    });
    world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
      const { bridgeIn } = await import('./app.ts');
      await bridgeIn(ctx).execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 500 });
    });
    const report = await world.run();
    expect(kit.effectNotes(world)).toHaveLength(1);
    expect(world.user.screensSeen).toHaveLength(2);
    expect(kit.auditEvents(world, 'execution.end')).toEqual([expect.objectContaining({ outcome: 'ok' })]);
    expect(new Set(kit.auditEvents(world, 'execution.attempt').map((e) => e.request_id)).size).toBe(1);
    expect(report.fdLeaks).toEqual([]);
  });
});

describe('the consumer’s own approval', () => {
  it('CETP-1-02 CETP-4.3-10: approving in the consumer’s dialog does not replace the provider’s confirmation, and nothing of it is sent', async () => {
    const world = kit.consumerWorld({
      providers: ['payments'],
      world: kit.approvingUser(3),
      consumer: { localApproval: 'activity' },
    });
    const { value } = await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid)),
    );
    expect(value.kind).toBe('ok');
    const screens = world.user.screensSeen.map((s) => s.activity.packageName);
    expect(screens).toEqual([kit.CONSUMER, kit.PAYMENTS_PACKAGE, kit.PAYMENTS_PACKAGE]);
    const codes = kit
      .consumerCalls(world, kit.PAYMENTS_PACKAGE)
      .filter((c) => c.method === 'execute_tool')
      .map((c) => (c.result?.kind === 'reply' ? c.result.reply?.getString('error_code') : null));
    expect(codes).toEqual(['AUTH_REQUIRED', 'USER_ACTION_REQUIRED', null]);
    const allowed = new Set([
      'protocol_version',
      'session_token',
      'request_id',
      'deadline_at_ms',
      'tool_name',
      'args',
      'resume_token',
      'operation_id',
    ]);
    for (const c of kit.consumerCalls(world, kit.PAYMENTS_PACKAGE).filter((c) => c.method !== 'negotiate')) {
      expect(c.extras?.keySet().filter((k) => !allowed.has(k))).toEqual([]);
    }
    const decisions = world.trace.ofKind('user.decision');
    const effect = world.truth.effects[0];
    expect((effect?.seq ?? 0) > (decisions.at(-1)?.seq ?? Number.POSITIVE_INFINITY)).toBe(true);
  });

  it('CETP-1-02: declining in the consumer’s dialog sends nothing at all', async () => {
    const world = kit.consumerWorld({
      providers: ['payments'],
      world: { user: { kind: 'scripted', decisions: ['deny'] } },
      consumer: { localApproval: 'activity' },
    });
    const { value } = await kit.runConsumer(world, (b, ctx) =>
      b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid)),
    );
    expect(value.kind).toBe('declined_locally');
    expect(kit.consumerCalls(world, kit.PAYMENTS_PACKAGE).filter((c) => c.method === 'execute_tool')).toEqual(
      [],
    );
    expect(world.user.screensSeen.map((s) => s.activity.className)).toEqual([APPROVAL_ACTIVITY]);
  });

  it('CETP-8-05: the local approval follows risk — a high-risk transfer asks, a moderate create_alert and a read do not', async () => {
    const world = kit.consumerWorld({
      providers: ['alerts', 'payments'],
      world: kit.approvingUser(6),
      consumer: { localApproval: 'activity', localApprovalMinRisk: 'high' },
    });
    await kit.runConsumer(world, async (b, ctx) => {
      await b.execute(kit.ALERTS_PACKAGE, 'get_quote', { symbol: 'AAPL' });
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 195 });
      await b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid));
    });
    const local = world.user.screensSeen.filter((s) => s.activity.packageName === kit.CONSUMER);
    expect(local).toHaveLength(1);
    expect(local[0]?.screen.lines.join(' ')).toContain('risk: high');
  });
});
