/**
 * Provider conformance, spec §4.3 and §7.2: resolutions, resume tokens, and the provider's own
 * confirmation UI.
 */
import { describe, expect, it } from 'vitest';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { UserDecision } from '../../sim/ui/user.ts';
import { ALERTS_PACKAGE } from '../apps/alerts.ts';
import type { MutationTool } from '../sdk/types.ts';
import * as kit from '../testing.ts';

const confirmAlways = kit.writeTool('pay', {
  annotations: kit.annotations({
    effect: 'transaction',
    risk: 'high',
    destructive: true,
    openWorld: true,
    confirmation: 'always',
  }),
  describeForConfirmation: (call) => ({
    object: `Payment of ${(call.args as { amount: number }).amount} EUR to ACME`,
    action: 'Send a payment',
    parameters: [
      ['Amount', `${(call.args as { amount: number }).amount} EUR`],
      ['Payee', 'ACME'],
    ],
    irreversible: 'The money leaves your account immediately.',
  }),
}) as MutationTool;

function payWorld(decisions: UserDecision[] = ['approve']) {
  return kit.testProviderWorld(
    { tools: [confirmAlways] },
    { user: { kind: 'scripted', decisions, thinkMs: 1000 } },
  );
}

async function firstResolution(
  c: kit.RawClient,
  args: unknown = { amount: 10 },
  requestId = c.ctx.seededUuid(),
) {
  const reply = await c.execute('pay', args, { requestId });
  return { reply, requestId, token: reply.getString('resume_token') ?? '' };
}

/** firstResolution, its screen launched and answered as the world's user decides. */
async function resolvedFirst(c: kit.RawClient) {
  const first = await firstResolution(c);
  await c.resolve(first.reply);
  return first;
}

/** The resume of `pay` (amount 10) under `requestId` with the resume `token`. */
function resume(c: kit.RawClient, requestId: string, token: string) {
  return c.execute('pay', { amount: 10 }, { requestId, resumeToken: token });
}

describe('§4.3 resolution errors', () => {
  it('CETP-4.3-01 CETP-4.3-02 CETP-4.3-03 CETP-5-09 CETP-7.2-04 CETP-7.2-05: confirmation is USER_ACTION_REQUIRED with an explicit, immutable PendingIntent of the provider and a resume_token', async () => {
    const world = payWorld();
    await kit.runNegotiated(world, async (c) => {
      const { reply } = await firstResolution(c);
      expect(kit.status(reply)).toBe('error:USER_ACTION_REQUIRED');
      expect(reply.getBoolean('retryable', true)).toBe(false);
      const pi = reply.getPendingIntent('resolution');
      expect(pi?.getCreatorPackage()).toBe('com.example.test');
      expect(pi?.getCreatorUid()).toBe(world.pm.getPackageUid('com.example.test'));
      expect(pi?.isImmutable()).toBe(true);
      expect(pi?.queryIntentComponents()).toEqual([
        { packageName: 'com.example.test', className: 'CetpConfirmActivity' },
      ]);
      expect(reply.getString('resume_token')?.length).toBeGreaterThan(16);
    });
  });

  it('CETP-4.3-08 CETP-4.3-09: nothing happens before the user confirms in the provider UI; then exactly one effect', async () => {
    const world = payWorld();
    await kit.runNegotiated(world, async (c) => {
      const { reply, requestId, token } = await firstResolution(c);
      expect(kit.effects(world)).toEqual([]);
      await c.resolve(reply);
      expect(world.trace.ofKind('ui.show')[0]?.data.actor).toBe('com.example.test');
      expect(kit.status(await resume(c, requestId, token))).toBe('success');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.3-10 CETP-1-02: a consumer "confirmed" flag is not confirmation', async () => {
    const world = payWorld();
    await kit.runNegotiated(world, async (c) => {
      const reply = await c.execute(
        'pay',
        { amount: 10, confirmed: true },
        { extra: (b) => b.putBoolean('confirmed', true) },
      );
      expect(kit.status(reply)).toBe('error:USER_ACTION_REQUIRED');
    });
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.3-15 CETP-5-10: a denial is USER_CANCELLED (retryable=false), terminal for the request', async () => {
    const world = payWorld(['deny']);
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await resolvedFirst(c);
      const denied = await resume(c, requestId, token);
      expect(kit.status(denied)).toBe('error:USER_CANCELLED');
      expect(denied.getBoolean('retryable', true)).toBe(false);
      expect(kit.status(await c.execute('pay', { amount: 10 }, { requestId }))).toBe('error:USER_CANCELLED');
    });
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.3-13 CETP-4.3-15 CETP-6-08: a denied scope grant re-sent by its own request (its reply was lost) is USER_CANCELLED again, never a new prompt', async () => {
    const world = kit.alertsWorld(kit.userDecides('deny', 'approve'));
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      const requestId = c.ctx.seededUuid();
      const args = { symbol: 'AAPL', price: 190 };
      const reply = await c.execute('create_alert', args, { requestId });
      expect(kit.status(reply)).toBe('error:AUTH_REQUIRED');
      await c.resolve(reply);
      const resumeToken = reply.getString('resume_token') ?? '';
      for (let attempt = 0; attempt < 2; attempt++) {
        expect(kit.status(await c.execute('create_alert', args, { requestId, resumeToken }))).toBe(
          'error:USER_CANCELLED',
        );
      }
      // The token stays bound to its request: another request presenting it is refused.
      expect(
        kit.status(await c.execute('create_alert', args, { requestId: c.ctx.seededUuid(), resumeToken })),
      ).toBe('error:INVALID_REQUEST');
    });
    expect(world.user.screensSeen).toHaveLength(1);
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.3-15: pressing Back is not an approval: the resume gets USER_CANCELLED', async () => {
    const world = payWorld(['back']);
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await resolvedFirst(c);
      expect(kit.status(await resume(c, requestId, token))).toBe('error:USER_CANCELLED');
    });
    expect(kit.effects(world)).toEqual([]);
  });
});

describe('§4.3 resume tokens', () => {
  it('CETP-4.3-13: a resume token works once; reusing it on another request is INVALID_REQUEST and adds no effect', async () => {
    const world = payWorld();
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await resolvedFirst(c);
      expect(kit.status(await resume(c, requestId, token))).toBe('success');
      // The same request again is a replay of its result (NOTES 2), never a second effect.
      expect(kit.status(await resume(c, requestId, token))).toBe('success');
      const other = await firstResolution(c);
      expect(
        kit.status(
          await c.execute('pay', { amount: 10 }, { requestId: other.requestId, resumeToken: token }),
        ),
      ).toBe('error:INVALID_REQUEST');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-4.3-14 CETP-6-04: a resume with changed args is rejected', async () => {
    const world = payWorld();
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await resolvedFirst(c);
      expect(kit.status(await c.execute('pay', { amount: 9999 }, { requestId, resumeToken: token }))).toBe(
        'error:INVALID_REQUEST',
      );
      expect(kit.status(await c.execute('pay', '{"amount": 10}', { requestId, resumeToken: token }))).toBe(
        'error:INVALID_REQUEST',
      );
    });
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.3-05: a token is bound to its tool and request_id', async () => {
    const other = kit.writeTool('other_write');
    const world = kit.testProviderWorld({ tools: [confirmAlways, other] }, kit.userDecides('approve'));
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await resolvedFirst(c);
      expect(
        kit.status(await c.execute('other_write', { amount: 10 }, { requestId, resumeToken: token })),
      ).toBe('error:INVALID_REQUEST');
      expect(kit.status(await c.execute('pay', { amount: 10 }, { resumeToken: token }))).toBe(
        'error:INVALID_REQUEST',
      );
    });
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.3-04: a token presented by another caller is rejected', async () => {
    const world = payWorld();
    world.install(kit.agentPackage(kit.OTHER_AGENT), () => ({}));
    const outcomes: string[] = [];
    world.spawnIn(kit.AGENT, 'victim', async (ctx) => {
      const c = new kit.RawClient(ctx, 'com.example.test.clawseed.tools');
      await c.negotiate();
      const { requestId, token } = await resolvedFirst(c);
      world.spawnIn(kit.OTHER_AGENT, 'thief', async (ctx2) => {
        const thief = new kit.RawClient(ctx2, 'com.example.test.clawseed.tools');
        await thief.negotiate();
        outcomes.push(
          kit.status(await thief.execute('pay', { amount: 10 }, { requestId, resumeToken: token })),
        );
      });
    });
    await world.run();
    expect(outcomes).toEqual(['error:INVALID_REQUEST']);
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-4.3-06: an expired token is not honoured: a fresh confirmation is required and nothing runs', async () => {
    const world = kit.testProviderWorld(
      { tools: [confirmAlways] },
      { user: { kind: 'scripted', decisions: ['approve', 'approve'], thinkMs: 11 * 60_000 } },
    );
    await kit.runNegotiated(world, async (c) => {
      const { requestId, token } = await resolvedFirst(c);
      const late = await resume(c, requestId, token);
      expect(kit.status(late)).toBe('error:USER_ACTION_REQUIRED');
      expect(late.getString('resume_token')).not.toBe(token);
      expect(kit.effects(world)).toEqual([]);
    });
  });

  it('CETP-7.2-06: the high-risk confirmation screen shows the object, action, key parameters and what is irreversible', async () => {
    const world = payWorld();
    await kit.runNegotiated(world, async (c) => {
      await c.resolve((await firstResolution(c, { amount: 250 })).reply);
    });
    const lines = world.user.screensSeen[0]?.screen.lines ?? [];
    expect(lines).toEqual(
      expect.arrayContaining([
        'Object: Payment of 250 EUR to ACME',
        'Action: Send a payment',
        'Amount: 250 EUR',
        'Payee: ACME',
        'Cannot be undone: The money leaves your account immediately.',
      ]),
    );
  });

  it('CETP-7.2-04: two confirmations in flight get distinct PendingIntent tokens (extras are not identity)', async () => {
    const world = payWorld(['approve', 'approve']);
    await kit.runNegotiated(world, async (c) => {
      const a = (await firstResolution(c, { amount: 1 })).reply.getPendingIntent('resolution');
      const b = (await firstResolution(c, { amount: 2 })).reply.getPendingIntent('resolution');
      expect(a?.sameToken(b)).toBe(false);
    });
  });

  it("CETP-4.3-16: the v2 resolution is a PendingIntent, not v1's implicit authorize_intent action string", async () => {
    const world = payWorld();
    await kit.runNegotiated(world, async (c) => {
      const { reply } = await firstResolution(c);
      expect(reply.containsKey('authorize_intent')).toBe(false);
      expect(reply.typeOf('resolution')).toBe('PendingIntent');
    });
  });

  it('CETP-5-08 CETP-4.3-01: missing scope authorization in alerts is AUTH_REQUIRED, resolved in the provider UI', async () => {
    const world = kit.alertsWorld(kit.userDecides('approve'));
    let reply: Bundle | null = null;
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      reply = await c.executeResolving('create_alert', { symbol: 'GOOG', price: 170 });
    });
    expect(kit.status(reply)).toBe('success');
    expect(world.user.screensSeen[0]?.screen.title).toContain('Allow');
    expect(world.user.screensSeen[0]?.activity.packageName).toBe(ALERTS_PACKAGE);
    expect(kit.data(reply).kind).toBe('inline');
  });
});
