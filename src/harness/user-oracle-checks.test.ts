/**
 * A fixture's own oracles are checked before any run, each problem named by its field; good ones
 * become the property's oracles (`invariant:<id>`, `model:<name>`), once each.
 */
import { describe, expect, it } from 'vitest';
import { ALERTS } from '../fuzz/scenario/fixtures.ts';
import { PROPERTIES } from '../fuzz/suites.ts';
import { checkProviderFixtures, withProviders } from './subjects.ts';

const fail = (message: string): never => {
  throw new Error(message);
};
const checked = (fixture: object) => checkProviderFixtures([fixture], undefined, 'test', fail);
const model = { initial: () => ({}), tools: { create_alert: () => undefined }, fromStorage: () => ({}) };

const holds = (): undefined => undefined;

const BAD: readonly (readonly [object, string])[] = [
  [{ invariants: {} }, 'providers[0].invariants must be an array'],
  [{ invariants: [{ id: 'bad id', check: holds }] }, 'providers[0].invariants[0].id must match'],
  [{ invariants: [{ id: 'x' }] }, 'providers[0].invariants[0].check must be a function'],
  [
    {
      invariants: [
        { id: 'x', check: holds },
        { id: 'x', check: holds },
      ],
    },
    "providers[0].invariants[1].id: 'x' is used twice",
  ],
  [
    { invariants: [{ id: 'x', ruleIds: ['CETP-99-99'], check: holds }] },
    'providers[0].invariants[0].ruleIds: unknown rule id(s) CETP-99-99',
  ],
  [{ model: { ...model, initial: 1 } }, 'providers[0].model.initial must be a function'],
  [
    { model: { ...model, tools: { nope: () => undefined } } },
    "providers[0].model.tools: 'nope' is not a tool",
  ],
  [
    { model: { ...model, tools: { create_alert: 3 } } },
    'providers[0].model.tools.create_alert must be a function',
  ],
];

describe('checking a fixture’s own oracles', () => {
  it.each(BAD)('refuses %j', async (extra, message) => {
    await expect(checked({ ...ALERTS, ...extra })).rejects.toThrow(message);
  });

  it('refuses two providers whose invariants share an id', async () => {
    const inv = { id: 'same', check: holds };
    const other = {
      ...ALERTS,
      name: 'other',
      packageName: 'com.other',
      authority: 'com.other.a',
      invariants: [inv],
    };
    await expect(
      checkProviderFixtures([{ ...ALERTS, invariants: [inv] }, other], undefined, 'test', fail),
    ).rejects.toThrow("both have an invariant 'same'");
  });

  it("adds a good fixture's invariants and model to every property's oracles, once", async () => {
    const subject = await checked({
      ...ALERTS,
      invariants: [{ id: 'never-empty', ruleIds: ['CETP-6-01'], check: holds }],
      model,
    });
    for (const def of PROPERTIES) {
      const once = withProviders(def, subject);
      const twice = withProviders(once, subject);
      const ids = (twice.fixture.checkers ?? []).map((c) => c.id);
      expect(ids.filter((id) => id === 'invariant:never-empty' || id === 'model:alerts')).toEqual([
        'invariant:never-empty',
        'model:alerts',
      ]);
    }
  });
});
