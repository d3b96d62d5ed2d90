/**
 * The tools of a generated app, written as a user writes them with the public SDK (`ReadTool`,
 * `MutationTool`, `ToolFailure`): rows of the caller's own in the app's table, every write inside
 * the SDK's transaction (`tx`), business rules in `validate`, what the confirmation screen shows in
 * `describeForConfirmation`, the long part of an async write in `prepare` (progress reported and
 * cancellation honoured, or neither, leaving the cancel to the SDK's commit; no business effect), ids from a counter in the app's meta table or from
 * the app's seeded uuid.
 */
import type { JsonObject, JsonValue } from '../base/json.ts';
import type {
  ConfirmationText,
  MutationTool,
  ProviderTool,
  ReadTool,
  StoreTransaction,
  ToolAnnotations,
  ToolCall,
  WorkControl,
} from '../index.ts';
import { ToolFailure } from '../index.ts';
import { inputSchema, isUrgent, outputSchema, shownParameters } from './args.ts';
import { type AppSpec, type Names, namesOf, type Row, type ToolKind, type ToolSpec } from './spec.ts';

/** The size of an export's report: above the SDK's default inline limit (256 KiB), so a file result. */
export const EXPORT_REPORT_CHARS = 300_000;

/** What tool code and the mistakes (mistakes.ts) share: names and the app's own operations. */
export interface Kit {
  readonly spec: AppSpec;
  readonly names: Names;
  /** The caller's row `id`, or undefined (none, or someone else's), read outside any transaction. */
  ownRow(call: ToolCall, id: string): Promise<Row | undefined>;
  /** A fresh id, from the counter (inside `tx`) or the seeded uuid. */
  newId(call: ToolCall, tx: StoreTransaction): Promise<string>;
  /** The row create stores for this call. */
  rowOf(call: ToolCall, id: string): Row;
  /** The caller's rows, in key order. */
  rowsOf(call: ToolCall): Row[];
  /** The long part of an async write: its steps' sleeps, progress after each, stop when cancel is asked. */
  prepare(call: ToolCall, work: WorkControl, tool: ToolSpec): Promise<JsonValue>;
}

export function kitOf(spec: AppSpec): Kit {
  const names = namesOf(spec);
  return {
    spec,
    names,
    async ownRow(call, id) {
      const row = (await call.context.storage.get(names.table, id)) as Row | undefined;
      return row?.owner_uid === call.caller.uid ? row : undefined;
    },
    async newId(call, tx) {
      if (spec.entity.ids === 'uuid') return `${names.idPrefix}-${call.context.seededUuid()}`;
      const seq = (((await tx.get(names.meta, 'seq')) as number | undefined) ?? 0) + 1;
      await tx.put(names.meta, 'seq', seq);
      return `${names.idPrefix}-${seq}`;
    },
    rowOf(call, id) {
      return { ...(call.args as JsonObject), [names.idField]: id, owner_uid: call.caller.uid };
    },
    rowsOf(call) {
      return [...call.context.storage.snapshot(names.table).values()]
        .map((r) => r as Row)
        .filter((r) => r.owner_uid === call.caller.uid);
    },
    async prepare(call, work, tool) {
      const steps = tool.prepareSteps;
      for (let step = 1; step <= steps; step++) {
        await call.context.sleep(tool.stepMs);
        // Without asking (and reporting nothing), the SDK's commit still honours a cancel (4.4-19).
        if (!tool.asksCancel) continue;
        if (await work.progress(step, steps, `Step ${step} of ${steps}`)) return null;
      }
      return null;
    },
  };
}

function annotations(t: ToolSpec): ToolAnnotations {
  const effect = t.kind === 'list' || t.kind === 'get' || t.kind === 'export' ? 'read' : t.kind;
  return {
    effect,
    risk: t.risk,
    destructive: t.kind === 'delete',
    idempotent: t.kind !== 'create',
    openWorld: false,
    confirmation: t.confirmation,
    execution: t.async ? 'sync_or_async' : 'sync',
  };
}

function header(kit: Kit, kind: ToolKind) {
  const { spec, names } = kit;
  const noun = spec.entity.noun;
  return {
    name: names.tool(kind),
    title: `${kind} ${noun}`,
    description: `${kind === 'list' || kind === 'export' ? `${kind}s your` : `${kind}s a`} ${noun}`,
    inputSchema: inputSchema(spec, names, kind),
    outputSchema: outputSchema(spec, names, kind),
    scopes: [kind === 'list' || kind === 'get' || kind === 'export' ? names.readScope : names.writeScope],
  };
}

function readTool(kit: Kit, t: ToolSpec & { kind: 'list' | 'get' | 'export' }): ReadTool {
  const { names } = kit;
  const read = async (call: ToolCall): Promise<JsonValue> => {
    if (t.kind === 'get') {
      const id = (call.args as JsonObject)[names.idField] as string;
      return { item: (await kit.ownRow(call, id)) ?? null };
    }
    const rows = kit.rowsOf(call);
    if (t.kind === 'list') {
      const limit = (call.args as { limit?: number }).limit;
      return { items: limit === undefined ? rows : rows.slice(0, limit) };
    }
    return { count: rows.length, rows, report: 'r'.repeat(EXPORT_REPORT_CHARS) };
  };
  return { ...header(kit, t.kind), annotations: { ...annotations(t), effect: 'read' }, read };
}

function screen(kit: Kit, call: ToolCall, action: string, irreversible: string | null): ConfirmationText {
  const args = call.args as JsonObject;
  const id = args[kit.names.idField];
  return {
    object: typeof id === 'string' ? `${kit.spec.entity.noun} ${id}` : `A new ${kit.spec.entity.noun}`,
    action,
    parameters: shownParameters(args),
    irreversible,
  };
}

async function ownOrConflict(kit: Kit, call: ToolCall, tx: StoreTransaction): Promise<[string, Row]> {
  const id = (call.args as JsonObject)[kit.names.idField] as string;
  const row = (await tx.get(kit.names.table, id)) as Row | undefined;
  if (row?.owner_uid !== call.caller.uid)
    throw new ToolFailure('CONFLICT', `The ${kit.spec.entity.noun} no longer exists.`);
  return [id, row];
}

function writeTool(kit: Kit, t: ToolSpec & { kind: 'create' | 'update' | 'delete' }): MutationTool {
  const { spec, names } = kit;
  const first = spec.entity.fields[0]?.name ?? '';
  const base = {
    ...header(kit, t.kind),
    annotations: annotations(t),
    ...(t.confirmation === 'provider_policy'
      ? { needsConfirmation: (call: ToolCall) => isUrgent(spec, call.args) }
      : {}),
    ...(t.async ? { prepare: (call: ToolCall, work: WorkControl) => kit.prepare(call, work, t) } : {}),
  };
  const ownValidate = async (call: ToolCall) =>
    (await kit.ownRow(call, (call.args as JsonObject)[names.idField] as string))
      ? []
      : [`No such ${spec.entity.noun}.`];
  if (t.kind === 'create')
    return {
      ...base,
      validate: (call) =>
        (call.args as JsonObject)[first] === spec.refusedValue ? [`That ${first} is not allowed.`] : [],
      describeForConfirmation: (call) => screen(kit, call, `Add a ${spec.entity.noun}`, null),
      mutate: async (call, tx) => {
        const id = await kit.newId(call, tx);
        await tx.put(names.table, id, kit.rowOf(call, id));
        return { [names.idField]: id };
      },
    };
  if (t.kind === 'update')
    return {
      ...base,
      validate: ownValidate,
      describeForConfirmation: (call) => screen(kit, call, `Change the ${spec.entity.noun}`, null),
      mutate: async (call, tx) => {
        const [id, row] = await ownOrConflict(kit, call, tx);
        await tx.put(names.table, id, { ...row, ...(call.args as JsonObject), owner_uid: row.owner_uid });
        return { updated: true, [names.idField]: id };
      },
    };
  return {
    ...base,
    validate: ownValidate,
    describeForConfirmation: (call) =>
      screen(kit, call, `Delete the ${spec.entity.noun}`, `The ${spec.entity.noun} is deleted permanently.`),
    mutate: async (call, tx) => {
      const [id] = await ownOrConflict(kit, call, tx);
      await tx.delete(names.table, id);
      return { deleted: true, [names.idField]: id };
    },
  };
}

/** The app's tools, in the description's order. */
export function toolsOf(kit: Kit): ProviderTool[] {
  return kit.spec.tools.map((t) =>
    t.kind === 'create' || t.kind === 'update' || t.kind === 'delete'
      ? writeTool(kit, t as ToolSpec & { kind: typeof t.kind })
      : readTool(kit, t as ToolSpec & { kind: typeof t.kind }),
  );
}
