/**
 * The expected model of a generated app's state, derived from its description: fast-check's
 * model-based style, for the per-tool `model` and user `invariants` a fixture will take (issue 30;
 * the fuzz engine does not read them yet: the lead wires `modelOf(spec)` and `invariantsOf(spec)`
 * into the fixture's fields when they exist). Plain functions over plain data:
 *
 * - `initial()`: no rows;
 * - `tools[name](m, { args, result, callerUid })`: the state after one successful call, ids taken
 *   from the result (so generated ids are matched up, not predicted);
 * - `fromStorage(tables)`: the same shape read from the app's committed tables;
 * - invariants over the app's storage and the run's history of successful calls.
 */
import type { JsonObject, JsonValue } from '../base/json.ts';
import { type AppSpec, type FieldSpec, isRead, namesOf, type Row } from './spec.ts';

/** The model state: the rows by id (each with its owner). */
export interface ZooState {
  readonly rows: Readonly<Record<string, Row>>;
}

export interface ToolStep {
  readonly args: JsonValue;
  readonly result: JsonValue;
  readonly callerUid: number;
}

/** One successful call of the run, in effect order. */
export interface HistoryEntry extends ToolStep {
  readonly tool: string;
}

export type Tables = ReadonlyMap<string, ReadonlyMap<string, JsonValue>>;

export interface AppModel<M> {
  initial(): M;
  readonly tools: Readonly<Record<string, (m: M, step: ToolStep) => M>>;
  fromStorage(tables: Tables): M;
}

export interface Invariant {
  readonly id: string;
  readonly description: string;
  /** null when it holds; else what broke it. */
  check(state: Tables, history: readonly HistoryEntry[]): string | null;
}

const obj = (v: JsonValue): JsonObject => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {});

export function modelOf(spec: AppSpec): AppModel<ZooState> {
  const names = namesOf(spec);
  const idOf = (v: JsonValue) => obj(v)[names.idField] as string;
  const tools: Record<string, (m: ZooState, step: ToolStep) => ZooState> = {};
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
        // Only the owner's update changes the row (another caller's is refused).
        return row?.owner_uid === callerUid ? { rows: { ...m.rows, [id]: { ...row, ...obj(args) } } } : m;
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
    fromStorage: (tables) => ({
      rows: Object.fromEntries(
        [...(tables.get(names.table) ?? new Map()).entries()]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => [k, v as Row]),
      ),
    }),
  };
}

/** Folds a history through the model. */
export function expectedState(spec: AppSpec, history: readonly HistoryEntry[]): ZooState {
  const model = modelOf(spec);
  return history.reduce((m, h) => model.tools[h.tool]?.(m, h) ?? m, model.initial());
}

function fits(field: FieldSpec, value: JsonValue | undefined): boolean {
  if (value === undefined) return field.optional;
  if (field.type === 'string') return typeof value === 'string';
  if (field.type === 'integer') return Number.isInteger(value);
  if (field.type === 'boolean') return typeof value === 'boolean';
  return (field.fields ?? []).every((f) => fits(f, obj(value)[f.name]));
}

export function invariantsOf(spec: AppSpec): Invariant[] {
  const names = namesOf(spec);
  const rowsOf = (state: Tables) => [...(state.get(names.table) ?? new Map()).entries()] as [string, Row][];
  const created = (history: readonly HistoryEntry[]) =>
    history.filter((h) => h.tool === names.tool('create'));
  const hasDelete = spec.tools.some((t) => t.kind === 'delete');
  return [
    {
      id: `${names.fixture}.rows-owned-by-creators`,
      description: 'every row belongs to a caller whose add created it',
      check(state, history) {
        const creators = new Map(created(history).map((h) => [obj(h.result)[names.idField], h.callerUid]));
        const bad = rowsOf(state).find(([id, r]) => creators.get(id) !== r.owner_uid);
        return bad
          ? `row ${bad[0]} is owned by uid ${bad[1].owner_uid}, created by ${String(creators.get(bad[0]) ?? 'no add')}`
          : null;
      },
    },
    {
      id: `${names.fixture}.one-row-per-add`,
      description: hasDelete ? 'no more rows than successful adds' : 'exactly one row per successful add',
      check(state, history) {
        const rows = rowsOf(state).length;
        const adds = created(history).length;
        return rows > adds || (!hasDelete && rows !== adds)
          ? `${rows} rows after ${adds} successful adds`
          : null;
      },
    },
    {
      id: `${names.fixture}.rows-well-formed`,
      description: "every row has the record's fields, of their types",
      check(state) {
        const bad = rowsOf(state).find(([, r]) => !spec.entity.fields.every((f) => fits(f, r[f.name])));
        return bad ? `row ${bad[0]} breaks the record's shape: ${JSON.stringify(bad[1])}` : null;
      },
    },
    {
      id: `${names.fixture}.reads-own-rows`,
      description: "a read answers only the caller's own rows",
      check(_state, history) {
        for (const h of history) {
          if (!isRead(spec.tools.find((t) => names.tool(t.kind) === h.tool)?.kind ?? 'create')) continue;
          const r = obj(h.result);
          const rows = [...((r.items ?? r.rows ?? []) as JsonValue[]), ...(r.item ? [r.item] : [])];
          const other = rows.find((x) => obj(x).owner_uid !== h.callerUid);
          if (other)
            return `${h.tool} answered uid ${h.callerUid} a row of uid ${String(obj(other).owner_uid)}`;
        }
        return null;
      },
    },
  ];
}

/** The model's state and the storage's, compared: null when equal, else the first difference. */
export function stateDifference(
  spec: AppSpec,
  history: readonly HistoryEntry[],
  tables: Tables,
): string | null {
  const want = expectedState(spec, history).rows;
  const got = modelOf(spec).fromStorage(tables).rows;
  for (const id of new Set([...Object.keys(want), ...Object.keys(got)])) {
    const a = JSON.stringify(sortKeys(want[id] ?? null));
    const b = JSON.stringify(sortKeys(got[id] ?? null));
    if (a !== b) return `row ${id}: expected ${a}, storage has ${b}`;
  }
  return null;
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
