/**
 * Provider conformance, spec §7 (caller identity, least privilege, untrusted input) and §10 (what
 * the SDK base class guarantees).
 */
import { describe, expect, it } from 'vitest';
import { ALERTS_PACKAGE } from '../apps/alerts.ts';
import type { AuthorizationRequest } from '../sdk/types.ts';
import * as kit from '../testing.ts';

describe('§7.1 caller identity', () => {
  it('CETP-7.1-01 CETP-10-08: the calling UID is captured at call() entry: effects are attributed to the caller, not the provider', async () => {
    const reference = kit.testProviderWorld({ tools: [kit.writeTool('w')] });
    await kit.runNegotiated(reference, async (c) => {
      await c.execute('w', {});
    });
    expect(kit.effects(reference).map((e) => e.uid)).toEqual([reference.pm.getPackageUid(kit.AGENT)]);
    // The same provider with the identity read after an await (a planted bug) sees its own UID.
    const buggy = kit.testProviderWorld({
      tools: [kit.writeTool('w')],
      options: { plantedBugs: new Set(['uid-after-await']) },
    });
    await kit.runNegotiated(buggy, async (c) => {
      await c.execute('w', {});
    });
    expect(kit.effects(buggy).map((e) => e.uid)).toEqual([buggy.pm.getPackageUid(kit.TEST_PACKAGE)]);
  });

  it('CETP-7.1-02: identity claimed in args or extras is ignored; only the UID counts', async () => {
    const seenPackages: string[][] = [];
    const world = kit.testProviderWorld({
      tools: [kit.readTool('whoami', (call) => ({ packages: [...call.caller.packages] }))],
      authorize: (req: AuthorizationRequest) => {
        seenPackages.push([...req.caller.packages]);
        return req.caller.packages.includes('com.example.bank')
          ? { kind: 'allow' }
          : { kind: 'deny', reason: 'Only the bank may call.' };
      },
    });
    await kit.runNegotiated(world, async (c) => {
      const reply = await c.execute(
        'whoami',
        { caller: 'com.example.bank', package: 'com.example.bank' },
        {
          extra: (b) => b.putString('calling_package', 'com.example.bank'),
        },
      );
      expect(kit.status(reply)).toBe('error:PERMISSION_DENIED');
    });
    expect(seenPackages).toEqual([[kit.AGENT]]);
  });

  it('CETP-7.1-03 CETP-7.1-07: a shared UID is seen with all its packages and refused by the reference policy', async () => {
    const world = kit.alertsWorld();
    world.install(kit.agentPackage('com.example.shared.a', 'shared-key', 'com.example.shared'), () => ({}));
    world.install(kit.agentPackage('com.example.shared.b', 'shared-key', 'com.example.shared'), () => ({}));
    const outcomes: string[] = [];
    world.spawnIn('com.example.shared.a', 'call', async (ctx) => {
      const c = new kit.RawClient(ctx);
      await c.negotiate();
      outcomes.push(kit.status(await c.execute('list_alerts', {})));
    });
    await world.run();
    expect(outcomes).toEqual(['error:PERMISSION_DENIED']);
    const audits = world.trace.ofKind('app.audit').map((e) => e.data.packages);
    expect(audits).toContainEqual(['com.example.shared.a', 'com.example.shared.b']);
  });

  it('CETP-7.1-04 CETP-7.1-06 CETP-10-08: a re-signed caller loses its session and its grants (bound to the certificate)', async () => {
    const world = kit.alertsWorld(kit.userDecides('approve', 'approve'));
    const seen: string[] = [];
    let token = '';
    await inPhases(world, [
      async (c) => {
        await c.negotiate(['cancellation']);
        token = c.token;
        seen.push(kit.status(await c.executeResolving('create_alert', { symbol: 'AAPL', price: 190 })));
        seen.push(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 191 })));
      },
      async () => world.resign(kit.AGENT, 'agent-rotated-key', true),
      async (c) => {
        c.token = token;
        seen.push(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 192 })));
        await c.negotiate(['cancellation']);
        seen.push(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 193 })));
      },
    ]);
    expect(seen).toEqual(['success', 'success', 'error:NEGOTIATION_REQUIRED', 'error:AUTH_REQUIRED']);
  });

  it('CETP-7.1-08: holding a normal "access tools" permission is no authorization', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      // The agent could declare and hold any normal permission; it changes nothing: a grant is needed.
      expect(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 190 }))).toBe(
        'error:AUTH_REQUIRED',
      );
    });
  });
});

/** Runs agent phases one after another, each in a fresh agent task; `null`-returning phases run as the harness. */
async function inPhases(
  world: ReturnType<typeof kit.alertsWorld>,
  phases: ((c: kit.RawClient) => Promise<unknown>)[],
) {
  world.spawn('driver', async () => {
    for (const phase of phases) {
      const done = world.scheduler.waiter<void>('phase');
      world.spawnIn(kit.AGENT, 'phase', async (ctx) => {
        try {
          await phase(new kit.RawClient(ctx));
        } finally {
          done.wake(undefined);
        }
      });
      await done.wait();
    }
  });
  await world.run();
}

describe('§7.2 least privilege', () => {
  it('CETP-7.2-03: scopes are checked on every call, not from an earlier list_tools; an expired grant asks again', async () => {
    const world = kit.alertsWorld({
      user: { kind: 'scripted', decisions: ['approve'] },
      faults: [{ at: 150, fault: { kind: 'clockJump', ms: 31 * 24 * 3_600_000 } }],
    });
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      await c.method('list_tools');
      expect(kit.status(await c.executeResolving('create_alert', { symbol: 'AAPL', price: 190 }))).toBe(
        'success',
      );
      expect(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 191 }))).toBe('success');
      while (world.scheduler.step < 150) await c.ctx.yield();
      await c.negotiate(['cancellation']);
      expect(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 192 }))).toBe(
        'error:AUTH_REQUIRED',
      );
    });
  });

  it('CETP-7.2-07 CETP-10-14: audit events name caller, tool, request id and outcome — never the args', async () => {
    const world = kit.alertsWorld(kit.userDecides('approve'));
    await kit.runAgent(world, async (c) => {
      await c.negotiate(['cancellation']);
      await c.executeResolving('create_alert', { symbol: 'TSLA', price: 251.25 });
    });
    const audits = world.trace.ofKind('app.audit').filter((e) => e.data.actor === ALERTS_PACKAGE);
    expect(audits.length).toBeGreaterThan(0);
    for (const e of audits) {
      expect(e.data).toHaveProperty('uid');
      expect(e.data).toHaveProperty('tool');
      expect(e.data).toHaveProperty('request_id');
      expect(e.data).toHaveProperty('outcome');
      expect(JSON.stringify(e.data)).not.toContain('251.25');
    }
  });
});

describe('§7.3 untrusted input', () => {
  it('CETP-7.3-04 CETP-10-10: business validation beyond the schema (unknown symbol, absurd price) is INVALID_ARGS', async () => {
    const world = kit.alertsWorld();
    await kit.runAgent(world, async (c) => {
      await c.negotiate();
      expect(kit.status(await c.execute('get_quote', { symbol: 'NOPE' }))).toBe('error:INVALID_ARGS');
      expect(kit.status(await c.execute('create_alert', { symbol: 'AAPL', price: 1e9 }))).toBe(
        'error:INVALID_ARGS',
      );
    });
    expect(kit.effects(world)).toEqual([]);
  });
});

describe('§10 the SDK base class', () => {
  it('CETP-10-01 CETP-5-11: with no policy, every tool is denied (PERMISSION_DENIED, retryable=false)', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.readTool('r', () => ({}))],
      sdkDefaultAuthorization: true,
    });
    await kit.runNegotiated(world, async (c) => {
      const reply = await c.execute('r', {});
      expect(kit.status(reply)).toBe('error:PERMISSION_DENIED');
      expect(reply.getBoolean('retryable', true)).toBe(false);
    });
  });

  it('CETP-10-05 CETP-5-12: a write tool without a mutation executor is refused (not listed, TOOL_NOT_FOUND, retryable=false)', async () => {
    const world = kit.testProviderWorld({
      tools: [kit.writeTool('w'), kit.readTool('r', () => ({}))],
      executor: null,
    });
    await kit.runNegotiated(world, async (c) => {
      expect((kit.data(await c.method('list_tools')).tools as { name: string }[]).map((t) => t.name)).toEqual(
        ['r'],
      );
      const reply = await c.execute('w', {});
      expect(kit.status(reply)).toBe('error:TOOL_NOT_FOUND');
      expect(reply.getBoolean('retryable', true)).toBe(false);
    });
    expect(kit.effects(world)).toEqual([]);
  });

  it('CETP-10-12 CETP-10-09: confirmation state is durable: an approval survives a provider restart before the resume', async () => {
    const confirmed = kit.writeTool('confirmed_write', {
      annotations: kit.annotations({ risk: 'moderate', confirmation: 'always' }),
    });
    const world = kit.testProviderWorld({ tools: [confirmed] }, kit.userDecides('approve'));
    await kit.runRequest(world, async (c, requestId) => {
      const first = await c.execute('confirmed_write', {}, { requestId });
      await c.resolve(first);
      world.killProcess(kit.TEST_PACKAGE, { kind: 'killed', reason: 'test' });
      await c.negotiate().catch(() => c.negotiate());
      const resumed = await c.execute(
        'confirmed_write',
        {},
        {
          requestId,
          resumeToken: first.getString('resume_token') ?? '',
        },
      );
      expect(kit.status(resumed)).toBe('success');
    });
    expect(kit.effects(world)).toHaveLength(1);
  });

  it('CETP-10-07 CETP-2.2-14: after the caller is re-signed its old session no longer works', async () => {
    const world = kit.alertsWorld();
    const seen: string[] = [];
    let token = '';
    await inPhases(world, [
      async (c) => {
        await c.negotiate();
        token = c.token;
        seen.push(kit.status(await c.method('list_tools')));
      },
      async () => world.resign(kit.AGENT, 'rotated', true),
      async (c) => {
        c.token = token;
        seen.push(kit.status(await c.method('list_tools')));
      },
    ]);
    expect(seen).toEqual(['success', 'error:NEGOTIATION_REQUIRED']);
  });
});
