/**
 * The zoo's model and invariants (model.ts) on a simulated device: a generated app driven by the
 * reference consumer with a user who approves every screen; the model folded over the successful
 * calls must equal the app's storage and every invariant must hold — and must fail when a mistake
 * breaks the app (a constant stored, the wrong owner).
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../base/json.ts';
import { bridgeIn, CONSUMER_PACKAGE, consumerApp, consumerPackage, World } from '../index.ts';
import { argPool } from './args.ts';
import { buildApp, type Variation } from './build.ts';
import { generateApp } from './generate.ts';
import { mistakeById } from './mistakes.ts';
import { type HistoryEntry, invariantsOf, stateDifference, type Tables } from './model.ts';
import { type AppSpec, namesOf } from './spec.ts';

/** Adds two rows, updates and deletes the first when the app has those tools, lists; returns history and tables. */
async function drive(spec: AppSpec, variation: Variation = {}) {
  const app = buildApp(spec, variation);
  const names = namesOf(spec);
  const world = new World({ seed: 3, user: { kind: 'scripted', decisions: [], otherwise: 'approve' } });
  app.defined.install(world);
  world.install(consumerPackage(), consumerApp());
  const history: HistoryEntry[] = [];
  const has = (kind: AppSpec['tools'][number]['kind']) => spec.tools.some((t) => t.kind === kind);
  world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
    const agent = bridgeIn(ctx);
    const call = async (tool: string, args: JsonValue) => {
      const outcome = await agent.execute(names.packageName, tool, args as never);
      if (outcome.kind === 'ok')
        history.push({ tool, args, result: outcome.untrusted.value, callerUid: ctx.uid });
      return outcome.kind === 'ok' ? outcome.untrusted.value : null;
    };
    const [full, minimal] = argPool(spec, names, 'create');
    const first = (await call(names.tool('create'), full as JsonValue)) as Record<string, string> | null;
    await call(names.tool('create'), minimal as JsonValue);
    const id = first?.[names.idField];
    if (id && has('update'))
      await call(names.tool('update'), {
        [names.idField]: id,
        [spec.entity.fields[0]?.name ?? '']: 'renamed',
      });
    if (id && has('delete')) await call(names.tool('delete'), { [names.idField]: id });
    if (has('list')) await call(names.tool('list'), {});
  });
  await world.run();
  const store = world.storage(names.packageName);
  const tables: Tables = new Map([[names.table, store.snapshot(names.table)]]);
  return { history, tables };
}

const failing = (spec: AppSpec, history: readonly HistoryEntry[], tables: Tables) =>
  invariantsOf(spec)
    .filter((i) => i.check(tables, history) !== null)
    .map((i) => i.id.split('.')[1]);

describe('zoo model and invariants', () => {
  const apps = [0, 1, 2, 3].map((i) => generateApp(1, i));

  it.each(apps.map((a) => [a.index, a]))(
    'app %i: the model of the successful calls is the storage',
    async (_, spec) => {
      const { history, tables } = await drive(spec);
      expect(history.filter((h) => h.tool === namesOf(spec).tool('create'))).toHaveLength(2);
      expect(stateDifference(spec, history, tables)).toBeNull();
      expect(failing(spec, history, tables)).toEqual([]);
    },
  );

  it('a create that stores a constant breaks the model', async () => {
    const spec = apps[0] as AppSpec;
    const { history, tables } = await drive(spec, mistakeById('constant-stored')?.variation);
    expect(stateDifference(spec, history, tables)).toMatch(/expected .* storage has/);
  });

  it('rows stored under the wrong owner break rows-owned-by-creators', async () => {
    const spec = apps[1] as AppSpec;
    const { history, tables } = await drive(spec, mistakeById('owner-constant')?.variation);
    expect(failing(spec, history, tables)).toContain('rows-owned-by-creators');
  });

  it('rows kept in memory break one-row-per-add', async () => {
    const spec = apps[2] as AppSpec;
    const { history, tables } = await drive(spec, mistakeById('memory-state')?.variation);
    expect(failing(spec, history, tables)).toContain('one-row-per-add');
  });
});
