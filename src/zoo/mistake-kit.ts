/**
 * What the mistake catalogue (mistakes.ts) is written with: the shape of a mistake and small helpers
 * that patch a generated app's tools.
 */
import type { JsonObject } from '../base/json.ts';
import type { AppContext, MutationTool, ProviderTool, ToolCall } from '../index.ts';
import type { Variation } from './build.ts';
import type { AppSpec, Row, ToolKind } from './spec.ts';
import type { Kit } from './tools.ts';

export interface Mistake {
  readonly id: string;
  readonly title: string;
  /** Which oracle catches it, or what would be needed to (for the misses). */
  readonly needs: string;
  /**
   * The share of (app, mistake) pairs the test slice must catch (src/zoo/zoo.test.ts): 1 for those an
   * oracle catches today, 0 for those that wait for one (`needs` says which).
   */
  readonly floor: number;
  /** Properties tried first (the rest follow, in catalogue order). */
  readonly killers: readonly string[];
  readonly applies: (spec: AppSpec) => boolean;
  readonly variation: Variation;
  /** A mistake about the manifest variants (variants.ts): applied with the app's own; else with none. */
  readonly manifestMistake?: boolean;
}

export type Patch<T extends ProviderTool> = (tool: T, kit: Kit) => ProviderTool;

/** Replaces the tools of `kinds` with `patch` of them. */
export function patchTools<T extends ProviderTool>(kinds: readonly ToolKind[], patch: Patch<T>): Variation {
  return {
    tools: (tools, kit) =>
      tools.map((t) => (kinds.some((k) => kit.names.tool(k) === t.name) ? patch(t as T, kit) : t)),
  };
}

export const has =
  (...kinds: ToolKind[]) =>
  (spec: AppSpec) =>
    kinds.some((k) => spec.tools.some((t) => t.kind === k));
export const hasWhere = (pred: (t: AppSpec['tools'][number]) => boolean) => (spec: AppSpec) =>
  spec.tools.some(pred);
export const argsOf = (call: ToolCall) => call.args as JsonObject;
export const idOf = (kit: Kit, call: ToolCall) => argsOf(call)[kit.names.idField] as string;

/** A per-process memory (lost when the process dies), as an app's field would be. */
export function processMemory(): (context: AppContext) => Map<string, Row> {
  const memory = new WeakMap<AppContext, Map<string, Row>>();
  return (context) => {
    const rows = memory.get(context) ?? new Map<string, Row>();
    memory.set(context, rows);
    return rows;
  };
}

type Tx = Parameters<MutationTool['mutate']>[1];
/** Writes a new row of `create` (its id already chosen): where and what is the mistake. */
export type CreateStore = (call: ToolCall, tx: Tx, kit: Kit, id: string) => unknown;
type NewId = (call: ToolCall, tx: Tx, kit: Kit) => string;

/** A create's mutate: choose the id (`kit.newId` unless `newId`), `store` the row, answer the id. */
export function createMutate(kit: Kit, store: CreateStore, newId?: NewId): MutationTool['mutate'] {
  return async (call, tx) => {
    const id = newId ? newId(call, tx, kit) : await kit.newId(call, tx);
    const stored = store(call, tx, kit, id);
    if (stored instanceof Promise) await stored; // a synchronous store takes no extra turn
    return { [kit.names.idField]: id };
  };
}

/** The create tool with `createMutate(kit, store, newId)` for its mutate. */
export const patchCreate = (store: CreateStore, newId?: NewId): Variation =>
  patchTools<MutationTool>(['create'], (tool, kit) => ({ ...tool, mutate: createMutate(kit, store, newId) }));

/** What a read tool (get, list or export) answers when `rows` are the rows it sees. */
export function readAnswer(kit: Kit, tool: ProviderTool, call: ToolCall, rows: Row[]): JsonObject {
  if (tool.name === kit.names.tool('get'))
    return { item: rows.find((r) => r[kit.names.idField] === idOf(kit, call)) ?? null };
  if (tool.name === kit.names.tool('list')) return { items: rows };
  return { count: rows.length, rows, report: 'r'.repeat(300_000) };
}

export const DESIGN = 'fixture agreement: the design (fixture) and list_tools disagree (exit 2)';

export function kindOf(kit: Kit, name: string): ToolKind {
  return kit.spec.tools.find((t) => kit.names.tool(t.kind) === name)?.kind ?? 'create';
}
