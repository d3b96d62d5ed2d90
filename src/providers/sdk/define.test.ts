/**
 * defineProvider: one definition makes the provider class, the manifest, the app factory and the
 * fuzz install; its authorization default asks the user for every scope (never a silent deny-all).
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../sim/world.ts';
import { AGENT, agentPackage, annotations, data, RawClient, status } from '../testing.ts';
import { CONFIRM_ACTIVITY } from './confirmations.ts';
import { defineProvider } from './define.ts';
import { CETP_PROVIDER, META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from './manifest.ts';
import type { MutationTool, ReadTool } from './types.ts';

const ping: ReadTool = {
  name: 'ping',
  title: 'Ping',
  description: 'Answers pong',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: { type: 'object' },
  scopes: [],
  annotations: annotations({ effect: 'read', idempotent: true }),
  read: async () => ({ pong: true }),
};

const note: MutationTool = {
  name: 'add_note',
  title: 'Add note',
  description: 'Adds a note',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object' },
  scopes: ['notes.write'],
  annotations: annotations(),
  describeForConfirmation: () => ({ object: 'a note', action: 'Add', parameters: [], irreversible: null }),
  mutate: async (call, tx) => {
    await tx.put('notes', call.requestKey, call.args);
    return { ok: true };
  },
};

const definition = {
  packageName: 'com.example.defined',
  descriptor: {
    providerName: 'Defined',
    description: 'A provider made by defineProvider',
    scopes: [
      { name: 'notes.write', description: 'Write notes', access: 'write', sensitivity: 'personal' },
    ] as const,
  },
  tools: [ping, note],
} as const;

async function callBoth(world: World): Promise<string[]> {
  world.install(agentPackage(), () => ({}));
  const out: string[] = [];
  world.spawnIn(AGENT, 'test', async (ctx) => {
    const c = new RawClient(ctx, 'com.example.defined.clawseed.tools');
    out.push(status(await c.negotiate()));
    out.push(status(await c.execute('ping', {})));
    out.push(status(await c.execute('add_note', { text: 'hi' })));
  });
  await world.run();
  return out;
}

describe('defineProvider', () => {
  it('makes the manifest: default authority, v2-only, the confirmation Activity', () => {
    const p = defineProvider(definition);
    expect(p.authority).toBe('com.example.defined.clawseed.tools');
    expect(p.descriptor.providerId).toBe('com.example.defined');
    const world = new World({ seed: 1 });
    p.install(world);
    world.install(agentPackage(), () => ({}));
    const [service] = world.pm.queryIntentServices(world.pm.getPackageUid(AGENT) ?? -1, TOOL_PROVIDER_ACTION);
    expect(service?.metaData[META_VERSION]).toBe('2');
    expect(service?.metaData[META_VERSIONS]).toBe('2');
    expect(world.pm.providerForAuthority(p.authority)?.packageName).toBe('com.example.defined');
    const manifest = world.pm.getPackageInfo('com.example.defined')?.manifest;
    expect(manifest?.activities.map((a) => a.name)).toContain(CONFIRM_ACTIVITY);
    expect(manifest?.providers.map((x) => x.name)).toEqual([CETP_PROVIDER]);
  });

  it('CETP-10-11: without authorize, scoped calls ask the user (AUTH_REQUIRED); unscoped ones run', async () => {
    const p = defineProvider(definition);
    expect(p.userGrantedScopes).toEqual(['notes.write']);
    const world = new World({ seed: 2 });
    p.install(world);
    expect(await callBoth(world)).toEqual(['success', 'success', 'error:AUTH_REQUIRED']);
  });

  it('CETP-10-11: freeScopes and a policy function replace the default', async () => {
    const free = defineProvider({ ...definition, authorize: { freeScopes: ['notes.write'] } });
    expect(free.userGrantedScopes).toEqual([]);
    const w1 = new World({ seed: 3 });
    free.install(w1);
    expect(await callBoth(w1)).toEqual(['success', 'success', 'success']);
    const denied = defineProvider({ ...definition, authorize: () => ({ kind: 'deny', reason: 'no' }) });
    expect(denied.userGrantedScopes).toBeNull();
    const w2 = new World({ seed: 3 });
    denied.install(w2);
    expect(await callBoth(w2)).toEqual(['success', 'error:PERMISSION_DENIED', 'error:PERMISSION_DENIED']);
  });

  it("install(world, variant) passes the variant's planted bugs to the provider", async () => {
    const p = defineProvider(definition);
    const world = new World({ seed: 4 });
    p.install(world, { providerBugs: ['uid-after-await'], disabledRules: [] });
    expect(await callBoth(world)).toContain('success');
    const instance = world.process('com.example.defined').app?.providers?.[CETP_PROVIDER];
    expect((instance as InstanceType<typeof p.Provider>).plantedBugs()).toEqual(new Set(['uid-after-await']));
  });

  it('listTools() is what list_tools answers on the wire', async () => {
    const p = defineProvider(definition);
    const world = new World({ seed: 5 });
    p.install(world);
    world.install(agentPackage(), () => ({}));
    let listed: unknown = null;
    world.spawnIn(AGENT, 'test', async (ctx) => {
      const c = new RawClient(ctx, p.authority);
      await c.negotiate();
      listed = data(await c.method('list_tools')).tools;
    });
    await world.run();
    expect(listed).toEqual(p.listTools());
  });

  it("fixture() carries the definition's invariants and model, then the spec's invariants; a spec model wins", () => {
    const mine = { id: 'mine', check: () => undefined };
    const theirs = { id: 'theirs', check: () => undefined };
    const model = { initial: () => 0, tools: { add_note: (n: number) => n + 1 }, fromStorage: () => 0 };
    const other = { ...model, initial: () => 1 };
    const p = defineProvider({ ...definition, invariants: [mine], model });
    const plain = p.fixture({ name: 'defined', tools: { ping: [{}] } });
    expect(plain.invariants?.map((i) => i.id)).toEqual(['mine']);
    expect(plain.model).toBe(model);
    const given = p.fixture({ name: 'defined', tools: { ping: [{}] }, invariants: [theirs], model: other });
    expect(given.invariants?.map((i) => i.id)).toEqual(['mine', 'theirs']);
    expect(given.model).toBe(other);
    expect(defineProvider(definition).fixture({ name: 'x', tools: { ping: [{}] } })).not.toHaveProperty(
      'invariants',
    );
  });
});
