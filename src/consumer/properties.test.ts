/**
 * Properties of the reference consumer under generated schedules, user answers and faults (a
 * provider kill, a lost reply, a consumer kill with a restart that resumes the journal), against
 * the reference providers. Whatever happens:
 * - every attempt of a logical execution carries the request_id it started with (4.1-04, 6-08);
 * - no logical execution has more than one business effect, and none has an effect it did not
 *   report as executed once it reported an outcome (6-01 as seen from the consumer);
 * - the consumer never crashes and never leaks a file descriptor (4.5-09).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UserDecision } from '../sim/ui/user.ts';
import { bridgeIn } from './app.ts';
import type { ToolOutcome } from './outcomes.ts';
import * as kit from './testing.ts';

const scenarioArb = fc.record({
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  decisions: fc.array(fc.constantFrom<UserDecision>('approve', 'approve', 'deny', 'back'), {
    minLength: 4,
    maxLength: 8,
  }),
  killProviderAtMs: fc.option(fc.integer({ min: 0, max: 14_000 }), { nil: null }),
  killConsumerAtMs: fc.option(fc.integer({ min: 1, max: 14_000 }), { nil: null }),
  loseReplyAtStep: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
});

describe('consumer properties', () => {
  it('CETP-4.1-04 CETP-6-08 CETP-4.5-09: same request_id per execution, at most one effect, no crash, no leak — under random schedules and faults', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const world = kit.consumerWorld({
          providers: ['alerts', 'payments'],
          world: {
            seed: s.seed,
            strategy: { kind: 'random' },
            user: { kind: 'scripted', decisions: s.decisions, otherwise: 'approve', thinkMs: 700 },
            stepBudget: 400_000,
            faults:
              s.loseReplyAtStep === null
                ? []
                : [
                    {
                      at: s.loseReplyAtStep,
                      fault: { kind: 'loseReply', callee: kit.PAYMENTS_PACKAGE, caller: kit.CONSUMER },
                    },
                  ],
          },
        });
        const outcomes: ToolOutcome[] = [];
        if (s.killProviderAtMs !== null) {
          const at = s.killProviderAtMs;
          world.spawn('kill provider', async () => {
            await world.scheduler.sleep(at);
            world.killProcess(kit.PAYMENTS_PACKAGE, { kind: 'killed', reason: 'property' });
          });
        }
        if (s.killConsumerAtMs !== null) {
          const at = s.killConsumerAtMs;
          world.spawn('restart consumer', async () => {
            await world.scheduler.sleep(at);
            world.killProcess(kit.CONSUMER, { kind: 'killed', reason: 'property' });
            await world.scheduler.sleep(1_000);
            world.spawnIn(kit.CONSUMER, 'resume', async (ctx) => {
              outcomes.push(...(await bridgeIn(ctx).resumePending()));
            });
          });
        }
        world.spawnIn(kit.CONSUMER, 'agent', async (ctx) => {
          const b = bridgeIn(ctx);
          outcomes.push(
            await b.execute(kit.PAYMENTS_PACKAGE, 'transfer', {
              from_account: `CHK-${ctx.uid}`,
              to_iban: 'DE89370400440532013000',
              amount: 3,
              currency: 'EUR',
              reference: 'p',
            }),
          );
          outcomes.push(await b.execute(kit.ALERTS_PACKAGE, 'create_alert', { symbol: 'SAP', price: 400 }));
        });
        const report = await world.run();
        expect(report.outcome.kind).not.toBe('crash');
        expect(report.crashes.filter((c) => c.task.includes(kit.CONSUMER))).toEqual([]);
        expect(report.fdLeaks.filter((l) => l.process === kit.CONSUMER)).toEqual([]);
        const started = new Map(
          kit
            .auditEvents(world)
            .filter((e) => e.event === 'execution.start')
            .map((e) => [e.execution_id, e.request_id]),
        );
        for (const a of kit.auditEvents(world, 'execution.attempt')) {
          expect(a.request_id).toBe(started.get(a.execution_id));
        }
        const perRequest = new Map<string, number>();
        for (const e of kit.effectNotes(world))
          perRequest.set(e.request_id, (perRequest.get(e.request_id) ?? 0) + 1);
        expect([...perRequest.values()].every((n) => n === 1)).toBe(true);
        expect([...perRequest.keys()].every((id) => [...started.values()].includes(id))).toBe(true);
        for (const o of outcomes) {
          const effects = kit.effectNotes(world).filter((e) => e.request_id === o.requestId).length;
          if (o.kind === 'ok' || o.kind === 'too_late_to_cancel') expect(effects).toBe(1);
          if (o.kind === 'user_cancelled' || o.kind === 'cancelled' || o.kind === 'declined_locally')
            expect(effects).toBe(0);
        }
      }),
      { numRuns: 30, seed: 20_251_202 },
    );
  });
});
