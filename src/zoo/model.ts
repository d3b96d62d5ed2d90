/**
 * A generated app's own oracles, derived from its description and written with the public API
 * (src/subjects/user-oracle-types.ts), as a user would write them for their app: the fixture carries
 * them (build.ts), so every run of every property checks them as `model:zoo<i>` and
 * `invariant:zoo<i>.<name>`. Plain functions over plain data:
 *
 * - the model: `initial()` no rows; `tools[name](m, request)` the state after one request that took
 *   effect, ids taken from its result (generated ids are matched up, not predicted); `fromStorage`
 *   the same shape read from the app's committed table;
 * - invariants over the app's storage and the run's requests, sound under faults: a request whose
 *   answer was never seen (`unknown`) may or may not have taken effect, so counts are ranges (at
 *   most succeeded + unknown, at least succeeded), and only requests sent to the app as it is now
 *   (`incarnation`, since its data was last wiped) count toward its storage.
 */
import type { JsonObject, JsonValue } from '../base/json.ts';
import type { AppState, Invariant, ModelRequest, RequestHistory, RunHistory, ToolModel } from '../index.ts';
import { type AppSpec, type FieldSpec, isRead, namesOf, type Row } from './spec.ts';

/** The model state: the rows by id (each with its owner). */
export interface ZooState {
  readonly rows: Readonly<Record<string, Row>>;
}

const obj = (v: JsonValue | undefined): JsonObject =>
  v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : {};

type Step = (m: ZooState, request: ModelRequest) => ZooState;

export function modelOf(spec: AppSpec): ToolModel<ZooState> {
  const names = namesOf(spec);
  const idOf = (v: JsonValue | undefined) => obj(v)[names.idField] as string;
  const tools: Record<string, Step> = {};
  for (const t of spec.tools) {
    const name = names.tool(t.kind);
    if (isRead(t.kind)) tools[name] = (m) => m;
    else if (t.kind === 'create')
      tools[name] = (m, { args, result, callerUid }) => {
        const id = idOf(result);
        return { rows: { ...m.rows, [id]: { ...obj(args), [names.idField]: id, owner_uid: callerUid } } };
      };
    else if (t.kind === 'update')
      tools[name] = (m, { args, callerUid }) => {
        const id = idOf(args);
        const row = m.rows[id];
        // Only the owner's update changes the row (another caller's is refused); the owner stays.
        return row?.owner_uid === callerUid
          ? { rows: { ...m.rows, [id]: { ...row, ...obj(args), owner_uid: row.owner_uid } } }
          : m;
      };
    else
      tools[name] = (m, { args, callerUid }) => {
        const { [idOf(args)]: gone, ...rest } = m.rows;
        return gone?.owner_uid === callerUid ? { rows: rest } : m;
      };
  }
  return {
    initial: () => ({ rows: {} }),
    tools,
    fromStorage: (state) => ({ rows: { ...(state[names.table] ?? {}) } as Record<string, Row> }),
  };
}

/** One request that took effect, as the model's step sees it. */
export interface Applied {
  readonly tool: string;
  readonly args: JsonValue;
  readonly result: JsonValue;
  readonly callerUid: number;
}

/** Folds requests that took effect through the model. */
export function expectedState(spec: AppSpec, applied: readonly Applied[]): ZooState {
  const model = modelOf(spec);
  return applied.reduce(
    (m, h, i) => model.tools[h.tool]?.(m, { ...h, requestId: `r${i}` }) ?? m,
    model.initial(),
  );
}

function fits(field: FieldSpec, value: JsonValue | undefined): boolean {
  if (value === undefined) return field.optional;
  if (field.type === 'string') return typeof value === 'string';
  if (field.type === 'integer') return Number.isInteger(value);
  if (field.type === 'boolean') return typeof value === 'boolean';
  return (field.fields ?? []).every((f) => fits(f, obj(value)[f.name]));
}

const succeeded = (r: RequestHistory) => r.outcome.kind === 'succeeded';
/** Took effect or may have: succeeded, or no answer was ever seen (the provider died, the reply was lost). */
const mayHaveTakenEffect = (r: RequestHistory) =>
  r.outcome.kind === 'succeeded' || r.outcome.kind === 'unknown';
const resultOf = (r: RequestHistory): JsonValue | undefined =>
  r.outcome.kind === 'succeeded' ? (r.outcome.result ?? undefined) : undefined;

export function invariantsOf(spec: AppSpec): Invariant[] {
  const names = namesOf(spec);
  const rowsOf = (state: AppState) => Object.entries(state[names.table] ?? {}) as [string, Row][];
  /** The requests of `kind` sent to the app as it is now (since its data was last wiped). */
  const current = (history: RunHistory, kind: 'create' | 'delete') =>
    history.requests.filter((r) => r.tool === names.tool(kind) && r.incarnation === history.incarnations);
  const hasDelete = spec.tools.some((t) => t.kind === 'delete');
  return [
    {
      id: `${names.fixture}.rows-owned-by-creators`,
      description: 'every row belongs to the caller whose add created it',
      check(state, history) {
        const adds = current(history, 'create');
        const creators = new Map(adds.filter(succeeded).map((r) => [obj(resultOf(r))[names.idField], r]));
        // A row no seen success made: an add that may have taken effect (its answer lost) made it.
        const unseen = new Set(adds.filter((r) => r.outcome.kind === 'unknown').map((r) => r.callerUid));
        const problems: string[] = [];
        for (const [id, row] of rowsOf(state)) {
          const add = creators.get(id);
          if (add ? add.callerUid !== row.owner_uid : !unseen.has(row.owner_uid))
            problems.push(
              `row ${id} is owned by uid ${String(row.owner_uid)}, ${add ? `added by uid ${add.callerUid}` : 'no add by that uid may have made it'}`,
            );
        }
        return problems.slice(0, 3);
      },
    },
    {
      id: `${names.fixture}.one-row-per-add`,
      description: hasDelete
        ? 'one row per add that took effect, less the deletes, however often each was sent'
        : 'exactly one row per add that took effect, however often each was sent',
      check(state, history) {
        const adds = current(history, 'create');
        const deletes = hasDelete ? current(history, 'delete') : [];
        const rows = rowsOf(state).length;
        const atLeast = adds.filter(succeeded).length - deletes.filter(mayHaveTakenEffect).length;
        const atMost = adds.filter(mayHaveTakenEffect).length - deletes.filter(succeeded).length;
        if (rows > atMost) return `${rows} rows, but at most ${atMost} adds (less deletes) can have made one`;
        if (rows < atLeast) return `${rows} rows, but ${atLeast} adds succeeded and were not deleted`;
      },
    },
    {
      id: `${names.fixture}.rows-well-formed`,
      description: "every row has the record's fields, of their types",
      check(state) {
        const bad = rowsOf(state).find(([, r]) => !spec.entity.fields.every((f) => fits(f, r[f.name])));
        if (bad) return `row ${bad[0]} breaks the record's shape: ${JSON.stringify(bad[1])}`;
      },
    },
    {
      id: `${names.fixture}.reads-own-rows`,
      description: "a read answers only the caller's own rows",
      check(_state, history) {
        for (const h of history.requests) {
          if (!succeeded(h)) continue;
          if (!isRead(spec.tools.find((t) => names.tool(t.kind) === h.tool)?.kind ?? 'create')) continue;
          const r = obj(resultOf(h));
          const rows = [...((r.items ?? r.rows ?? []) as JsonValue[]), ...(r.item ? [r.item] : [])];
          const other = rows.find((x) => obj(x).owner_uid !== h.callerUid);
          if (other)
            return `${h.tool} answered uid ${h.callerUid} a row of uid ${String(obj(other).owner_uid)}`;
        }
      },
    },
  ];
}

/** The model's state and the storage's, compared: null when equal, else the first difference. */
export function stateDifference(spec: AppSpec, applied: readonly Applied[], state: AppState): string | null {
  const want = expectedState(spec, applied).rows;
  const got = modelOf(spec).fromStorage(state).rows;
  for (const id of new Set([...Object.keys(want), ...Object.keys(got)])) {
    const a = JSON.stringify(sortKeys(want[id] ?? null));
    const b = JSON.stringify(sortKeys(got[id] ?? null));
    if (a !== b) return `row ${id}: expected ${a}, storage has ${b}`;
  }
  return null;
}

/** A fault-free history of successful requests (one call each, all delivered), as the fuzzer's record has it. */
export function historyOf(packageName: string, applied: readonly Applied[]): RunHistory {
  return {
    packageName,
    requests: applied.map((h, i) => ({
      requestId: `r${i}`,
      callerUid: h.callerUid,
      callerPackage: '',
      tool: h.tool,
      args: h.args,
      calls: [{ callId: i, step: i, t: 0, answer: 'success', delivered: true }],
      outcome: { kind: 'succeeded', result: h.result },
      incarnation: 0,
      effects: 1,
    })),
    lifecycle: [],
    incarnations: 0,
  };
}

/** What the invariants find broken: `id: why` each ([] when none). */
export function brokenInvariants(spec: AppSpec, state: AppState, history: RunHistory): string[] {
  return invariantsOf(spec).flatMap((inv) => {
    const r = inv.check(state, history);
    const why =
      r === undefined || r === true ? [] : r === false ? ['violated'] : typeof r === 'string' ? [r] : r;
    return why.map((w) => `${inv.id}: ${w}`);
  });
}

function sortKeys(v: JsonValue): JsonValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sortKeys);
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k] as JsonValue)]),
  );
}
