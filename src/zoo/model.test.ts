/**
 * The zoo's model and invariants (model.ts) on a simulated device: a generated app driven by the
 * reference consumer with a user who approves every screen; the model folded over the successful
 * calls must equal the app's storage and every invariant must hold — and must fail when a mistake
 * breaks the app (a constant stored, the wrong owner).
 */
import { describe, expect, it } from 'vitest';
import type { AppState, RunHistory } from '../index.ts';
import { generateApp, generateApps } from './generate.ts';
import { mistakeById } from './mistakes.ts';
import { type Applied, historyOf, invariantsOf, stateDifference } from './model.ts';
import { runSession, sessionProblems } from './session.ts';
import { type AppSpec, namesOf } from './spec.ts';

const drive = runSession;

const failing = (spec: AppSpec, history: readonly Applied[], tables: AppState) =>
  invariantsOf(spec)
    .filter((i) => {
      const r = i.check(tables, historyOf(namesOf(spec).packageName, history));
      return !(r === undefined || r === true || (Array.isArray(r) && r.length === 0));
    })
    .map((i) => i.id.split('.')[1]);

describe('zoo model and invariants', () => {
  const apps = [0, 1, 2, 3].map((i) => generateApp(1, i));

  it.each(apps.map((a) => [a.index, a]))(
    'app %i: the model of the successful calls is the storage',
    async (_, spec) => {
      const { history, tables } = await drive(spec);
      expect(history.filter((h) => h.tool === namesOf(spec).tool('create'))).toHaveLength(3);
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

  it('an update that creates a missing row breaks the model', async () => {
    const spec = apps.find((a) => a.tools.some((t) => t.kind === 'update')) as AppSpec;
    const session = await drive(spec, mistakeById('update-upserts')?.variation);
    expect(sessionProblems(spec, session).join('\n')).toMatch(/model: row /);
  });

  it('rows kept in memory break one-row-per-add', async () => {
    const spec = apps[2] as AppSpec;
    const { history, tables } = await drive(spec, mistakeById('memory-state')?.variation);
    expect(failing(spec, history, tables)).toContain('one-row-per-add');
  });
});

describe('zoo model: two callers', () => {
  it("a read that answers another caller's rows breaks reads-own-rows", async () => {
    const spec = generateApps(1, 10).find((a) => a.tools.some((t) => t.kind === 'list')) as AppSpec;
    const session = await runSession(spec, mistakeById('no-owner-filter')?.variation);
    expect(sessionProblems(spec, session).join('\n')).toMatch(/reads-own-rows/);
  });

  it("a delete of another caller's row breaks the model", async () => {
    const spec = generateApps(1, 10).find((a) => a.tools.some((t) => t.kind === 'delete')) as AppSpec;
    const session = await runSession(spec, mistakeById('delete-no-owner-check')?.variation);
    expect(sessionProblems(spec, session).join('\n')).toMatch(/model: row .*storage has null/);
  });
});

describe('zoo invariants under faults', () => {
  const spec = generateApps(1, 10).find((a) => !a.tools.some((t) => t.kind === 'delete')) as AppSpec;
  const names = namesOf(spec);
  const add = (id: string, kind: 'succeeded' | 'unknown' | 'error', incarnation = 0) => ({
    ...(historyOf(names.packageName, [
      { tool: names.tool('create'), args: {}, result: { [names.idField]: id }, callerUid: 10_100 },
    ]).requests[0] as RunHistory['requests'][number]),
    requestId: id,
    incarnation,
    outcome:
      kind === 'succeeded'
        ? { kind, result: { [names.idField]: id } }
        : kind === 'error'
          ? { kind, code: 'CONFLICT', retryable: false }
          : { kind },
  });
  const rows = (...ids: string[]): AppState => ({
    [names.table]: Object.fromEntries(ids.map((id) => [id, { [names.idField]: id, owner_uid: 10_100 }])),
  });
  const broken = (state: AppState, requests: RunHistory['requests'], incarnations = 0) =>
    invariantsOf(spec)
      .filter((i) => i.id.endsWith('one-row-per-add') || i.id.endsWith('rows-owned-by-creators'))
      .flatMap((i) => {
        const r = i.check(state, { packageName: names.packageName, requests, lifecycle: [], incarnations });
        return r === undefined || (Array.isArray(r) && r.length === 0) ? [] : [i.id.split('.')[1]];
      })
      .sort();

  it('an add whose answer was lost may or may not have made its row', () => {
    expect(broken(rows('a'), [add('a', 'succeeded'), add('b', 'unknown')])).toEqual([]);
    expect(broken(rows('a', 'x'), [add('a', 'succeeded'), add('b', 'unknown')])).toEqual([]);
  });

  it('more rows than adds that may have taken effect, or fewer than succeeded, break it', () => {
    expect(broken(rows('a', 'x'), [add('a', 'succeeded'), add('b', 'error')])).toEqual([
      'one-row-per-add',
      'rows-owned-by-creators',
    ]);
    expect(broken(rows(), [add('a', 'succeeded')])).toEqual(['one-row-per-add']);
  });

  it('adds sent before the last wipe do not count', () => {
    expect(broken(rows(), [add('a', 'succeeded', 0)], 1)).toEqual([]);
    expect(broken(rows('a'), [add('a', 'succeeded', 0)], 1)).toEqual([
      'one-row-per-add',
      'rows-owned-by-creators',
    ]);
  });
});
