/**
 * The consumer's planted bugs and rule ablation. For every planted bug there is a scenario and a
 * detector (the observation a checker would make from the trace and the wire log): the detector
 * stays silent for the reference consumer and fires with the bug switched on. Likewise switching a
 * rule off by id removes exactly the behaviour its enforcement point guards.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_CASES, HOSTILE_PACKAGE, installHostile } from '../providers/hostile/index.ts';
import type { World } from '../sim/world.ts';
import { bridgeIn } from './app.ts';
import { ConsumerGates } from './gates.ts';
import { type ConsumerOptionsInit, resolveConsumerOptions } from './options.ts';
import { CONSUMER_PLANTED_BUGS, type ConsumerBug } from './planted.ts';
import * as kit from './testing.ts';

const hostile = (id: string) => (HOSTILE_CASES.find((c) => c.id === id) ?? { behaviour: {} }).behaviour;
const WRITE = kit.toolDescriptor('write', {}, { effect: 'create', risk: 'low' });
const executes = (world: World) => kit.consumerCalls(world).filter((c) => c.method === 'execute_tool');

/** A scenario run with `consumer` options; true = the violation the bug stands for was observed. */
type Detector = (consumer: ConsumerOptionsInit) => Promise<boolean>;

async function scriptedWrite(consumer: ConsumerOptionsInit, answer: NonNullable<kit.ScriptedSpec['answer']>) {
  const world = kit.consumerWorld({ providers: [], consumer });
  kit.installScripted(world, { tools: [WRITE], answer });
  await kit.runConsumer(world, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
  return world;
}

async function onHostile(consumer: ConsumerOptionsInit, id: string) {
  const world = kit.consumerWorld({ providers: [], consumer, world: kit.approvingUser(2) });
  installHostile(world, hostile(id));
  const { report } = await kit.runConsumer(world, (b) =>
    b.execute(HOSTILE_PACKAGE, 'lookup', { query: 'x' }),
  );
  return { world, report };
}

const DETECTORS: Readonly<Record<ConsumerBug, Detector>> = {
  'consumer-retries-non-retryable': async (consumer) => {
    const world = await scriptedWrite(consumer, (c) =>
      c.method === 'execute_tool' ? kit.errorReply(c.requestId, 'CONFLICT', { retryable: false }) : undefined,
    );
    return executes(world).length > 1;
  },
  'consumer-new-request-id-on-retry': async (consumer) => {
    // A lost reply on an effectful call: a new id for the retry is a second effect.
    const world = kit.consumerWorld({ providers: ['alerts'], consumer, world: kit.approvingUser(1) });
    await kit.runConsumer(world, async (b) => {
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'AAPL', price: 195 });
      world.applyFault({ kind: 'loseReply', callee: kit.ALERTS_PACKAGE, caller: kit.CONSUMER });
      await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'MSFT', price: 400 });
    });
    return kit.effectNotes(world).length > 2;
  },
  'consumer-downgrades-to-v1': async (consumer) => {
    const { world } = await onHostile(consumer, 'negotiate-unsupported-version-with-v1-bait');
    return kit
      .consumerCalls(world, HOSTILE_PACKAGE)
      .some((c) => c.method !== 'negotiate' && !c.extras?.containsKey('protocol_version'));
  },
  'consumer-skips-sha256': async (consumer) => {
    const { world } = await onHostile(consumer, 'file-sha256-wrong');
    return kit.auditEvents(world, 'execution.end').some((e) => e.outcome === 'ok');
  },
  'consumer-ignores-retry-after': async (consumer) => {
    const world = await scriptedWrite(consumer, (c) =>
      c.method !== 'execute_tool'
        ? undefined
        : c.n === 1
          ? kit.errorReply(c.requestId, 'RATE_LIMITED', { retryable: true, retryAfterMs: 5_000 })
          : kit.success(c.requestId, { kind: 'inline', value: {} }),
    );
    const [a, b] = executes(world);
    return (b?.t ?? 0) - (a?.t ?? 0) < 5_000;
  },
  'consumer-leaks-fd-on-error': async (consumer) => {
    const { report } = await onHostile(consumer, 'file-size-wrong');
    return report.fdLeaks.some((l) => l.process === kit.CONSUMER);
  },
  'consumer-accepts-foreign-pi': async (consumer) => {
    const { world } = await onHostile(consumer, 'resolution-relayed-pending-intent');
    return world.trace
      .ofKind('pi.send')
      .some((e) => e.data.from === kit.CONSUMER && e.data.creator !== HOSTILE_PACKAGE);
  },
  'consumer-uses-stable-call': async (consumer) => {
    const world = kit.consumerWorld({ providers: [], consumer });
    kit.installScripted(world, {
      tools: [WRITE],
      answer: (c) => {
        if (c.method === 'execute_tool' && c.context.process.incarnation === 1) {
          world.killProcess(kit.SCRIPTED_PACKAGE, { kind: 'killed', reason: 'test' });
        }
        return undefined;
      },
    });
    world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
      await bridgeIn(ctx).execute(kit.SCRIPTED_PACKAGE, 'write', {});
    });
    await world.run();
    // The consumer process died with the provider (AMS kills stable clients of a dying provider).
    return world.allProcesses().find((p) => p.name === kit.CONSUMER)?.state.kind === 'dead';
  },
  'consumer-calls-unnegotiated-method': async (consumer) => {
    const world = kit.consumerWorld({
      providers: ['payments'],
      consumer: { ...consumer, capabilities: ['async_operations'] },
      world: kit.approvingUser(2),
    });
    await kit.runConsumer(world, (b, ctx) => {
      const cancel = b.cancellation();
      return b.execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid, 5, 'x'), {
        cancel,
        onProgress: () => cancel.cancel(),
      });
    });
    return kit.consumerCalls(world).some((c) => c.method === 'cancel_operation');
  },
  'consumer-trusts-unknown-error-retryable': async (consumer) => {
    const { world } = await onHostile(consumer, 'unknown-error-code-retryable');
    return executes(world).length > 1;
  },
  'consumer-forgets-request-id-on-restart': async (consumer) => {
    const world = kit.consumerWorld({ providers: ['payments'], consumer, world: kit.approvingUser(6) });
    world.spawn('restart the consumer', async () => {
      while (!(world.contentCalls ?? []).some((c) => c.method === 'get_operation'))
        await world.scheduler.sleep(100);
      world.killProcess(kit.CONSUMER, { kind: 'killed', reason: 'test' });
      world.spawnIn(kit.CONSUMER, 'resume', async (ctx) => {
        await bridgeIn(ctx).resumePending();
      });
    });
    world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
      await bridgeIn(ctx).execute(kit.PAYMENTS_PACKAGE, 'transfer', kit.transferArgs(ctx.uid, 5, 'x'));
    });
    await world.run();
    const started = kit.auditEvents(world, 'execution.start')[0]?.request_id;
    return kit.auditEvents(world, 'execution.resumed').some((e) => e.request_id !== started);
  },
};

describe('planted bugs', () => {
  it('every planted bug has a detector', () => {
    expect(Object.keys(DETECTORS).sort()).toEqual(Object.keys(CONSUMER_PLANTED_BUGS).sort());
  });

  for (const [bug, detect] of Object.entries(DETECTORS) as [ConsumerBug, Detector][]) {
    it(`${bug}: silent for the reference consumer, caught with the bug planted`, async () => {
      expect(await detect({})).toBe(false);
      expect(await detect({ plantedBugs: [bug] })).toBe(true);
    });
  }

  it('unknown bug names and rule ids are refused', () => {
    expect(() => resolveConsumerOptions({ plantedBugs: ['consumer-is-perfect'] })).toThrow(RangeError);
    expect(() => new ConsumerGates(['CETP-99-99'])).toThrow(RangeError);
  });
});

describe('rule ablation', () => {
  const ABLATIONS: readonly { rule: string; detect: Detector }[] = [
    { rule: 'CETP-5-26', detect: DETECTORS['consumer-retries-non-retryable'] },
    { rule: 'CETP-5-27', detect: DETECTORS['consumer-ignores-retry-after'] },
    { rule: 'CETP-4.5-06', detect: DETECTORS['consumer-skips-sha256'] },
    { rule: 'CETP-4.1-04', detect: DETECTORS['consumer-new-request-id-on-retry'] },
    {
      rule: 'CETP-2.1-08',
      detect: async (consumer) => {
        const { world } = await onHostile(consumer, 'discovery-authority-of-other-package');
        return kit.auditEvents(world, 'provider.disabled').every((e) => e.reason !== 'package_mismatch');
      },
    },
    {
      rule: 'CETP-3.2-12',
      detect: async (consumer) => {
        const { world } = await onHostile(consumer, 'unknown-effect-enum');
        return executes(world).length > 0;
      },
    },
    {
      rule: 'CETP-4.4-19',
      detect: async (consumer) => {
        const world = kit.consumerWorld({ providers: ['payments'], consumer, world: kit.approvingUser(2) });
        const { value } = await kit.runConsumer(world, kit.reconcileCancelledAtProgress);
        // Reported "cancelled" without ever polling after cancellation_requested.
        const methods = kit.consumerCalls(world).map((c) => c.method);
        return value.kind === 'cancelled' && methods.at(-1) === 'cancel_operation';
      },
    },
  ];

  for (const { rule, detect } of ABLATIONS) {
    it(`${rule} switched off removes its enforcement point`, async () => {
      // An issue is dropped only when every rule it cites is off (protocol withoutDisabledRules).
      const rules = rule === 'CETP-3.2-12' ? [rule, 'CETP-3.4-01'] : [rule];
      expect(await detect({})).toBe(false);
      expect(await detect({ disabledRules: rules })).toBe(true);
    });
  }
});
