/**
 * Users' own oracles over one small run (a tiny app: `add` stores an item, `peek` reads): what they
 * see (the app's tables without the SDK's, every request with its outcome), and how their verdicts
 * come out — held, violated by a message, an assertion or `false`, or the oracle's own crash — and the
 * model's verdict naming the first differing part.
 */
import assert from 'node:assert';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../base/json.ts';
import { bridgeIn, CONSUMER_PACKAGE, consumerApp, consumerPackage } from '../consumer/app.ts';
import { defineProvider } from '../providers/sdk/define.ts';
import type { MutationTool } from '../providers/sdk/types.ts';
import { AGENT, agentPackage, annotations, RawClient } from '../providers/testing.ts';
import { World } from '../sim/world.ts';
import type { Invariant, ToolModel } from '../subjects/user-oracle-types.ts';
import { type Observation, observe } from './observation.ts';
import { firstDifference, userOracles } from './user-oracles.ts';

const PACKAGE = 'com.example.items';

function addTool(mutate: MutationTool['mutate']): MutationTool {
  return {
    name: 'add',
    title: 'Add',
    description: 'Adds an item',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object' },
    scopes: [],
    annotations: annotations(),
    describeForConfirmation: () => ({ object: 'an item', action: 'Add', parameters: [], irreversible: null }),
    mutate,
  };
}

const correct = addTool(async (call, tx) => {
  const seq = (((await tx.get('meta', 'seq')) as number | undefined) ?? 0) + 1;
  await tx.put('meta', 'seq', seq);
  await tx.put('items', `ITEM-${seq}`, { name: (call.args as { name: string }).name });
  return { item_id: `ITEM-${seq}` };
});

const ignoresName = addTool(async (_call, tx) => {
  const seq = (((await tx.get('meta', 'seq')) as number | undefined) ?? 0) + 1;
  await tx.put('meta', 'seq', seq);
  await tx.put('items', `ITEM-${seq}`, { name: 'item' });
  return { item_id: `ITEM-${seq}` };
});

/** A world with the Items app, whose one tool is `add`, installed. */
function itemsWorld(add: MutationTool) {
  const app = defineProvider({
    packageName: PACKAGE,
    descriptor: { providerName: 'Items', description: 'Items', scopes: [] },
    tools: [add],
  });
  const world = new World({ seed: 1, recordContentCalls: true });
  app.install(world);
  return { app, world };
}

/** One run: the reference consumer adds 'a' and 'b' (with `wipe`: 'a', 'c', a reinstall, then 'b'). */
async function run(add: MutationTool, wipe = false): Promise<Observation> {
  const { world } = itemsWorld(add);
  world.install(consumerPackage(), consumerApp());
  world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
    const agent = bridgeIn(ctx);
    for (const name of wipe ? ['a', 'c', 'b'] : ['a', 'b']) {
      await agent.execute(PACKAGE, 'add', { name });
      if (wipe && name === 'c') world.applyFault({ kind: 'reinstall', package: PACKAGE });
    }
  });
  const report = await world.run();
  return observe(world, report);
}

const judge = (obs: Observation, oracles: { invariants?: Invariant[]; model?: ToolModel<unknown> }) =>
  userOracles([{ name: 'items', packageName: PACKAGE, ...oracles }]).flatMap((c) =>
    c.check(obs, {} as never).map((v) => ({ checker: v.checker, class: v.class, message: v.message })),
  );

type Items = Record<string, string>;
const model: ToolModel<Items> = {
  initial: () => ({}),
  tools: {
    add: (items, { args, result }) => ({
      ...items,
      [(result as { item_id: string }).item_id]: (args as { name: string }).name,
    }),
  },
  fromStorage: (state) =>
    Object.fromEntries(
      Object.entries(state.items ?? {}).map(([k, v]) => [k, (v as JsonObject).name as string]),
    ),
};

describe('user oracles', () => {
  it("see the app's own tables (not the SDK's cetp.*) and every request with its outcome", async () => {
    const obs = await run(correct);
    let seen: unknown;
    judge(obs, {
      invariants: [
        {
          id: 'look',
          check: (state, history) => {
            seen = { tables: Object.keys(state).sort(), items: state.items, history };
          },
        },
      ],
    });
    const { tables, items, history } = seen as {
      tables: string[];
      items: unknown;
      history: { requests: { tool: string; args: unknown; outcome: unknown; effects: number }[] };
    };
    expect(tables).toEqual(['items', 'meta']);
    expect(items).toEqual({ 'ITEM-1': { name: 'a' }, 'ITEM-2': { name: 'b' } });
    expect(history.requests.map((r) => [r.tool, r.args, r.outcome, r.effects])).toEqual([
      ['add', { name: 'a' }, { kind: 'succeeded', result: { item_id: 'ITEM-1' } }, 1],
      ['add', { name: 'b' }, { kind: 'succeeded', result: { item_id: 'ITEM-2' } }, 1],
    ]);
  });

  it('report a message, messages, false or an assertion as a violation, anything else thrown as a crash', async () => {
    const obs = await run(correct);
    const count = (state: { items?: object }) => Object.keys(state.items ?? {}).length;
    expect(
      judge(obs, {
        invariants: [
          { id: 'holds', check: (state) => count(state) === 2 },
          { id: 'says', check: (state) => (count(state) === 3 ? undefined : `${count(state)} items`) },
          { id: 'lists', check: () => ['one', 'two'] },
          { id: 'false', check: () => false },
          { id: 'asserts', check: (state) => assert.equal(count(state), 5) },
          { id: 'typo', check: (state) => (state as never as { x: { y: number } }).x.y },
          { id: 'async', check: (async () => undefined) as never },
        ],
      }).map((v) => [v.checker, v.class]),
    ).toEqual([
      ['invariant:says', 'correctness'],
      ['invariant:lists', 'correctness'],
      ['invariant:lists', 'correctness'],
      ['invariant:false', 'correctness'],
      ['invariant:asserts', 'correctness'],
      ['invariant:typo', 'crash'],
      ['invariant:async', 'crash'],
    ]);
    const [says, , , , asserts, typo] = judge(obs, {
      invariants: [
        { id: 'says', check: () => '2 items' },
        { id: 'a', check: () => ['one', 'two'] },
        { id: 'f', check: () => false },
        { id: 'asserts', check: (state) => assert.equal(count(state), 5) },
        { id: 'typo', check: (state) => (state as never as { x: { y: number } }).x.y },
      ],
    });
    expect(says?.message).toBe('invariant says of items: 2 items');
    expect(asserts?.message).toMatch(/^invariant asserts of items: 2 == 5|Expected values to be strictly/);
    expect(typo?.message).toMatch(
      /the check threw TypeError: .* \(an error in the invariant, not an assertion\)/,
    );
  });

  it('hand out read-only data: an invariant that writes to it crashes, and the next oracle sees it intact', async () => {
    const obs = await run(correct);
    const verdicts = judge(obs, {
      invariants: [
        {
          id: 'writes',
          check: (_state, history) => {
            (history.requests[0]?.args as { name: string }).name = 'changed'; // throws: frozen
          },
        },
        {
          id: 'reads',
          check: (_state, history) =>
            (history.requests[0]?.args as { name?: string } | undefined)?.name === 'a',
        },
      ],
      model: model as ToolModel<unknown>,
    });
    expect(verdicts.map((v) => [v.checker, v.class])).toEqual([['invariant:writes', 'crash']]);
  });

  it('read a hostile caller’s args nested deeper than the stack without crashing the campaign', async () => {
    const { app, world } = itemsWorld(correct);
    world.install(agentPackage(), () => ({}));
    world.spawnIn(AGENT, 'hostile', async (ctx) => {
      const c = new RawClient(ctx, app.authority);
      await c.negotiate();
      await c.execute('add', `${'['.repeat(200_000)}${']'.repeat(200_000)}`, { sessionToken: c.token });
    });
    const obs = observe(world, await world.run());
    let requests: unknown;
    const verdicts = judge(obs, {
      invariants: [
        {
          id: 'count',
          check: (_state, history) => {
            requests = history.requests.length;
          },
        },
      ],
      model: model as ToolModel<unknown>,
    });
    expect(verdicts).toEqual([]);
    expect(requests).toBe(1);
  });

  it('model: passes on the app, fails naming the first differing part on one that ignores an argument', async () => {
    expect(judge(await run(correct), { model: model as ToolModel<unknown> })).toEqual([]);
    expect(judge(await run(ignoresName), { model: model as ToolModel<unknown> })).toEqual([
      {
        checker: 'model:items',
        class: 'correctness',
        message: expect.stringMatching(
          /^model of items: after 2 requests that took effect \(2 add\), \["ITEM-1"\]: the model has "a", storage "item" \(last named by add request [0-9a-f-]{36}\)$/,
        ),
      },
    ]);
  });

  it('a wipe: requests before it are of an earlier install, and the model starts again from it', async () => {
    const obs = await run(correct, true);
    let seen: unknown;
    const verdicts = judge(obs, {
      invariants: [
        {
          id: 'look',
          check: (state, history) => {
            seen = {
              items: state.items,
              incarnations: history.incarnations,
              requests: history.requests.map((r) => [r.args, r.incarnation, r.outcome.kind]),
              lifecycle: history.lifecycle.map((e) => e.kind),
            };
          },
        },
      ],
      model: model as ToolModel<unknown>,
    });
    expect(verdicts).toEqual([]);
    expect(seen).toEqual({
      items: { 'ITEM-1': { name: 'b' } },
      incarnations: 1,
      requests: [
        [{ name: 'a' }, 0, 'succeeded'],
        [{ name: 'c' }, 0, 'succeeded'],
        [{ name: 'b' }, 1, 'succeeded'],
      ],
      lifecycle: ['wipe', 'restart'],
    });
  });

  it("model: a step that throws is the model's crash, named with the step", async () => {
    const broken: ToolModel<Items> = { ...model, tools: { add: () => JSON.parse('{') } };
    const [v] = judge(await run(correct), { model: broken as ToolModel<unknown> });
    expect(v?.class).toBe('crash');
    expect(v?.message).toMatch(/^model of items: tools\.add \(request [0-9a-f-]+\) threw SyntaxError/);
  });

  it('firstDifference names a path, a missing key or an extra one; Maps compare as their entries', () => {
    expect(firstDifference({ a: { b: [1, 2] } }, { a: { b: [1, 3] } })).toBe(
      'a.b[1]: the model has 2, storage 3',
    );
    expect(firstDifference({ a: 1 }, {})).toBe('a: in the model (1), not in storage');
    expect(firstDifference({}, { 'x-1': 2 })).toBe('["x-1"]: in storage (2), not in the model');
    expect(firstDifference([1], [1, 2])).toBe('the whole model: the model has 1 items, storage 2');
    expect(firstDifference({ a: 1 }, { a: 1 })).toBeNull();
  });
});
