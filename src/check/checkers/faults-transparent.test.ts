/**
 * faults-transparent as a pure function of two records — the run's commits (attributed to their
 * requests) and a fault-free replay's — on hand-built observations: it fails a second row, a counter
 * bumped twice, a value that differs, an id used for two rows, an effect declared twice; it passes
 * ids and instants that differ only as generated values do; it skips, with a reason, what it cannot
 * judge. Whole runs (a kill in the to-do app) are in properties/user-apps/faults-transparent.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../base/json.ts';
import type { CommitRecord, CommitWrite } from '../../sim/ground-truth.ts';
import type { FaultFreeRecord, ReplayedRequest } from '../fault-free.ts';
import type { CallView, EffectNote, Observation } from '../observation.ts';
import type { RunRecord } from '../record.ts';
import { callView, checkContext, commitRecord } from '../testing.ts';
import { faultsTransparent, faultsTransparentVerdict } from './faults-transparent.ts';

const P = 'com.example.todo';
const UID = 10_001;
const RID1 = 'f0e1d2c3-0000-4000-8000-000000000001';
const RID2 = 'f0e1d2c3-0000-4000-8000-000000000002';

function call(id: number, requestId: string, tool: string, args: JsonValue): CallView {
  return callView({ id, provider: P, callerUid: UID, requestId, toolName: tool, args: JSON.stringify(args) });
}

const put = (table: string, key: string, value: JsonValue): CommitWrite => ({
  table,
  key,
  deleted: false,
  value,
});

const commit = (seq: number, callId: number, writes: CommitWrite[]) => commitRecord(P, seq, callId, writes);

function replayed(key: string, tool: string, args: JsonValue, writes: CommitWrite[], effects = 0) {
  return {
    key: `${P}|${UID}|${key}`,
    tool,
    args: JSON.stringify(args),
    writes: writes.map((w, i) => ({ ...w, provider: P, seq: 1_000 + i })),
    effects,
  } satisfies ReplayedRequest;
}

function observation(
  commits: CommitRecord[],
  calls: CallView[],
  faultFree: FaultFreeRecord | undefined,
  effects: EffectNote[] = [],
): Observation {
  return {
    record: { truth: { commits } } as unknown as RunRecord,
    calls,
    events: [],
    effects,
    memo: new Map(),
    ...(faultFree ? { faultFree } : {}),
  } as unknown as Observation;
}

const ctx = checkContext({
  providersUnderTest: [P],
  toolEffects: new Map([
    [`${P}|add_todo`, 'create'],
    [`${P}|complete_todo`, 'update'],
  ]),
});

const ADD = { text: 'milk' };
const row = (id: string, extra: Record<string, JsonValue> = {}) => ({ id, text: 'milk', ...extra });

describe('faults-transparent', () => {
  it('passes ids from the PRNG and instants of the clock that differ only as generated values do', () => {
    const obs = observation(
      [
        commit(10, 1, [put('todos', 'T-aaa', row('T-aaa', { at: '2026-01-01T00:58:40.197Z' }))]),
        commit(20, 2, [put('todos', 'T-aaa', row('T-aaa', { at: 1_767_229_200_000, done: true }))]),
      ],
      [call(1, RID1, 'add_todo', ADD), call(2, RID2, 'complete_todo', { id: 'T-aaa' })],
      {
        kind: 'replayed',
        requests: [
          replayed(RID1, 'add_todo', ADD, [
            put('todos', 'T-zzz', row('T-zzz', { at: '2026-01-01T00:00:01Z' })),
          ]),
          replayed(RID2, 'complete_todo', { id: 'T-zzz' }, [
            put('todos', 'T-zzz', row('T-zzz', { at: 1_767_225_601_000, done: true })),
          ]),
        ],
      },
    );
    expect(faultsTransparentVerdict(obs, ctx)).toEqual({ verdict: 'held', requests: 2, violations: [] });
  });

  it('fails a second row one request left after a retry, naming the request, the rows and the commits', () => {
    const obs = observation(
      [
        commit(10, 1, [put('todos', 'T-aaa', row('T-aaa'))]),
        commit(30, 2, [put('todos', 'T-bbb', row('T-bbb'))]),
      ],
      [call(1, RID1, 'add_todo', ADD), call(2, RID1, 'add_todo', ADD)],
      {
        kind: 'replayed',
        requests: [replayed(RID1, 'add_todo', ADD, [put('todos', 'T-zzz', row('T-zzz'))])],
      },
    );
    const found = faultsTransparent.check(obs, ctx);
    expect(found.map((v) => v.message)).toEqual([
      `request ${RID1} of uid ${UID} (add_todo, effect #1 of 1): the run left 2 rows it created (todos/T-aaa, todos/T-bbb), a fault-free execution 1; extra: todos/T-bbb by commit #30`,
    ]);
    expect(found[0]?.events).toEqual([10, 30]);
    expect(found[0]?.calls).toEqual([1, 2]);
    expect(found[0]?.ruleIds).toEqual(['CETP-6-01', 'CETP-6-06', 'CETP-10-06', 'CETP-4.4-17']);
  });

  it('fails a counter bumped twice and a field that differs, naming the field', () => {
    const counter = observation(
      [commit(10, 1, [put('meta', 'adds', 2), put('todos', 'T-aaa', row('T-aaa'))])],
      [call(1, RID1, 'add_todo', ADD)],
      {
        kind: 'replayed',
        requests: [
          replayed(RID1, 'add_todo', ADD, [put('meta', 'adds', 1), put('todos', 'T-z', row('T-z'))]),
        ],
      },
    );
    expect(faultsTransparent.check(counter, ctx)[0]?.message).toMatch(
      /\(add_todo, effect #1 of 1\): meta\/adds \(created by it; written by commits #10\) holds 2 after the run; a fault-free execution leaves 1$/,
    );
    // 'milk' was an argument in both worlds: it is not a generated value, whatever else it pairs with.
    const field = observation(
      [commit(10, 1, [put('todos', 'T-aaa', row('T-aaa', { text: 'milk!' }))])],
      [call(1, RID1, 'add_todo', ADD)],
      { kind: 'replayed', requests: [replayed(RID1, 'add_todo', ADD, [put('todos', 'T-z', row('T-z'))])] },
    );
    expect(faultsTransparent.check(field, ctx)[0]?.message).toMatch(
      /todos\/T-aaa \(created by it; written by commits #10\) holds \.text = "milk!" after the run; a fault-free execution leaves "milk"$/,
    );
  });

  it('fails one generated id standing for two of the other world (pairs are one to one)', () => {
    const obs = observation(
      [
        commit(10, 1, [put('todos', 'T-aaa', row('T-aaa', { parent: 'G-1' }))]),
        commit(20, 2, [put('todos', 'T-bbb', row('T-bbb', { parent: 'G-1' }))]),
      ],
      [call(1, RID1, 'add_todo', ADD), call(2, RID2, 'add_todo', ADD)],
      {
        kind: 'replayed',
        requests: [
          replayed(RID1, 'add_todo', ADD, [put('todos', 'T-y', row('T-y', { parent: 'G-8' }))]),
          replayed(RID2, 'add_todo', ADD, [put('todos', 'T-z', row('T-z', { parent: 'G-9' }))]),
        ],
      },
    );
    expect(faultsTransparent.check(obs, ctx)[0]?.message).toMatch(
      /effect #2 of 2\): todos\/T-bbb \(created by it; written by commits #20\) holds \.parent/,
    );
  });

  it('fails an effect declared in two executions of one request', () => {
    const effect = { provider: P, uid: UID, requestId: RID1, seq: null, step: 5 } as unknown as EffectNote;
    const obs = observation(
      [commit(10, 1, [put('todos', 'T-aaa', row('T-aaa'))])],
      [call(1, RID1, 'add_todo', ADD)],
      { kind: 'replayed', requests: [replayed(RID1, 'add_todo', ADD, [put('todos', 'T-z', row('T-z'))], 1)] },
      [effect, { ...effect, step: 9 }],
    );
    expect(faultsTransparent.check(obs, ctx)[0]?.message).toMatch(
      /declared 2 business effects in the run, a fault-free execution 1$/,
    );
  });

  it('skips, with its reason, a run without a replay, a replay that was skipped, and a write no request can be held to', () => {
    const add = [call(1, RID1, 'add_todo', ADD)];
    const one = [commit(10, 1, [put('todos', 'T-aaa', row('T-aaa'))])];
    expect(faultsTransparentVerdict(observation(one, add, undefined), ctx)).toEqual({
      verdict: 'skipped',
      reason: 'no fault-free replay was made for this run',
    });
    const skipped = { kind: 'skipped', reason: 'a caller was re-installed' } as const;
    expect(faultsTransparentVerdict(observation(one, add, skipped), ctx)).toEqual({
      verdict: 'skipped',
      reason: 'a caller was re-installed',
    });
    // A commit by a task serving no call and recording no request (an Activity of the app, say).
    const stray = { ...commit(40, 0, [put('todos', 'T-ccc', row('T-ccc'))]), call: null };
    const obs = observation([...one, stray], add, {
      kind: 'replayed',
      requests: [replayed(RID1, 'add_todo', ADD, [put('todos', 'T-z', row('T-z'))])],
    });
    expect(faultsTransparentVerdict(obs, ctx)).toEqual({
      verdict: 'skipped',
      reason: 'commit #40 ("tx 40") wrote todos/T-ccc and no request that took effect can be held to it',
    });
    expect(faultsTransparent.check(obs, ctx)).toEqual([]);
  });
});
