/**
 * A fixture's own oracles (`invariants`, `model`; src/subjects/user-oracle-types.ts) checked before any
 * run, every problem named by its field: ids unique and well-formed, functions where functions go,
 * rule ids that exist, model steps only for tools the fixture has.
 */
import { RULE_IDS } from '../protocol/rule-ids.ts';

const INVARIANT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const KNOWN_RULES: ReadonlySet<string> = new Set(RULE_IDS);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkRuleIds(value: unknown, at: string, fail: (message: string) => never): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    fail(`${at} must be an array of spec rule ids (e.g. 'CETP-6-01')`);
  const unknown = (value as string[]).filter((id) => !KNOWN_RULES.has(id));
  if (unknown.length > 0)
    fail(`${at}: unknown rule id(s) ${unknown.join(', ')} (see \`npx cetp-sim rules\`)`);
}

/** Checks `raw.invariants` and `raw.model` of fixture `at`; `tools` are the tool names it knows. */
export function checkUserOracles(
  raw: Record<string, unknown>,
  at: string,
  tools: ReadonlySet<string>,
  fail: (message: string) => never,
): void {
  const { invariants, model } = raw;
  if (invariants !== undefined) {
    if (!Array.isArray(invariants))
      fail(`${at}.invariants must be an array of { id, description?, ruleIds?, check(state, history) }`);
    const seen = new Set<string>();
    (invariants as unknown[]).forEach((inv, i) => {
      const here = `${at}.invariants[${i}]`;
      if (!isRecord(inv))
        fail(`${here} must be an object { id, description?, ruleIds?, check(state, history) }`);
      const { id, description, check, ruleIds } = inv as Record<string, unknown>;
      if (typeof id !== 'string' || !INVARIANT_ID.test(id))
        fail(`${here}.id must match ${INVARIANT_ID.source} (it becomes the oracle id invariant:<id>)`);
      if (seen.has(id as string)) fail(`${here}.id: '${id as string}' is used twice`);
      seen.add(id as string);
      if (description !== undefined && typeof description !== 'string')
        fail(`${here}.description must be a string`);
      if (typeof check !== 'function')
        fail(`${here}.check must be a function (state, history) => void | string | string[]`);
      checkRuleIds(ruleIds, `${here}.ruleIds`, fail);
    });
  }
  if (model === undefined) return;
  const here = `${at}.model`;
  if (!isRecord(model)) fail(`${here} must be an object { initial(), tools, fromStorage(state), equals? }`);
  const m = model as Record<string, unknown>;
  for (const name of ['initial', 'fromStorage'] as const)
    if (typeof m[name] !== 'function') fail(`${here}.${name} must be a function`);
  if (m.equals !== undefined && typeof m.equals !== 'function')
    fail(`${here}.equals must be a function (expected, actual) => boolean`);
  if (!isRecord(m.tools) || Object.keys(m.tools).length === 0)
    fail(`${here}.tools must map at least one tool name to its step (model, request) => model | void`);
  for (const [tool, step] of Object.entries(m.tools as Record<string, unknown>)) {
    if (!tools.has(tool))
      fail(`${here}.tools: '${tool}' is not a tool of this fixture (known: ${[...tools].join(', ')})`);
    if (typeof step !== 'function')
      fail(`${here}.tools.${tool} must be a function (model, request) => model | void`);
  }
  checkRuleIds(m.ruleIds, `${here}.ruleIds`, fail);
}

/** Refuses two fixtures whose invariants share an id (each is the oracle `invariant:<id>`). */
export function checkInvariantIdsUnique(
  fixtures: readonly { readonly name: string; readonly invariants?: readonly { readonly id: string }[] }[],
  fail: (message: string) => never,
): void {
  const owner = new Map<string, string>();
  for (const f of fixtures)
    for (const inv of f.invariants ?? []) {
      const other = owner.get(inv.id);
      if (other !== undefined && other !== f.name)
        fail(
          `providers ${other} and ${f.name} both have an invariant '${inv.id}': oracle ids must be unique`,
        );
      owner.set(inv.id, f.name);
    }
}
