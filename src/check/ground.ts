/**
 * Helpers for oracles that judge from the world's ground truth (src/sim/ground-truth.ts): what a
 * screen showed, which values of an effect's args it shows, which tools need the user's approval
 * (as the provider published them on the wire or in its descriptor), and a maximum matching (so that
 * one approval, or one request_id, is never counted for two things).
 */

import type { JsonValue } from '../base/json.ts';
import type { ScreenRecord } from '../sim/ground-truth.ts';
import type { CheckContext } from './checker.ts';
import {
  type CallView,
  callsWithRequestKey,
  type EffectNote,
  memoOn,
  type Observation,
  succeeded,
} from './observation.ts';

/** The text a screen put in front of the user: title and lines. */
export function screenText(s: ScreenRecord): string {
  return [s.title, ...s.lines].join('\n');
}

/**
 * The values of `args` a screen must show for the user to have approved them: every non-empty string
 * and every number, at any depth (booleans and nulls are not "key values" a person reads).
 */
export function keyValues(args: JsonValue, out: (string | number)[] = []): (string | number)[] {
  if (typeof args === 'string') {
    if (args.trim() !== '') out.push(args);
  } else if (typeof args === 'number') out.push(args);
  else if (Array.isArray(args)) for (const v of args) keyValues(v, out);
  else if (args !== null && typeof args === 'object') for (const v of Object.values(args)) keyValues(v, out);
  return out;
}

const NUMBER = /-?\d[\d,]*(?:\.\d+)?/g;

/** Whether `text` shows `value`: a string as written (any case), a number as any numeral equal to it. */
export function shows(text: string, value: string | number): boolean {
  if (typeof value === 'string') return text.toLowerCase().includes(value.toLowerCase());
  for (const m of text.matchAll(NUMBER)) if (Number(m[0].replaceAll(',', '')) === value) return true;
  return false;
}

/** The values of an effect (its object, then its args' key values) that `screen` does not show. */
export function unshown(screen: ScreenRecord, e: EffectNote): (string | number)[] {
  const text = screenText(screen);
  const wanted = [...new Set([...(e.object ? [e.object] : []), ...keyValues(e.args)])];
  return wanted.filter((v) => !shows(text, v));
}

/**
 * Tools that need the user's approval before any effect, by `provider|tool`: confirmation "always"
 * in the provider's descriptor (the fixture's) or in any list_tools answer it gave on the wire.
 */
export function alwaysConfirmed(obs: Observation, ctx: CheckContext): ReadonlySet<string> {
  return memoOn(obs, ALWAYS, () => {
    const out = new Set<string>();
    for (const [key, policy] of ctx.toolConfirmations ?? []) if (policy === 'always') out.add(key);
    for (const c of obs.calls) {
      if (!succeeded(c, 'list_tools')) continue;
      const tools = (c.reply.data as { tools?: unknown } | undefined)?.tools;
      if (!Array.isArray(tools)) continue;
      for (const t of tools as { name?: unknown; annotations?: { confirmation?: unknown } }[]) {
        if (typeof t?.name === 'string' && t.annotations?.confirmation === 'always')
          out.add(`${c.provider}|${t.name}`);
      }
    }
    return out;
  });
}
const ALWAYS: unique symbol = Symbol('cetp.check.always-confirmed');

/** The calls of `e`'s request: execute_tool from the UID it was made for, with its request_id. */
export function callsOf(obs: Observation, e: EffectNote): CallView[] {
  return callsWithRequestKey(obs, `${e.provider}|${e.uid}|${e.requestId}`).filter(
    (c) =>
      c.method === 'execute_tool' &&
      c.provider === e.provider &&
      c.callerUid === e.uid &&
      c.requestId === e.requestId &&
      c.step <= e.step,
  );
}

/**
 * Whether `e` needed the user's approval: its tool is always confirmed, or the provider answered its
 * request USER_ACTION_REQUIRED before the effect (it asked the user, so the user must have agreed).
 */
export function neededApproval(obs: Observation, ctx: CheckContext, e: EffectNote): boolean {
  if (alwaysConfirmed(obs, ctx).has(`${e.provider}|${e.tool}`)) return true;
  return callsOf(obs, e).some(
    (c) =>
      c.reply.kind === 'bundle' &&
      c.reply.errorCode === 'USER_ACTION_REQUIRED' &&
      c.replyStep !== null &&
      c.replyStep < e.step,
  );
}

/**
 * Screens on which the user approved, in the provider's own UI (4.3-09), in time for `e`: shown
 * after the request was first sent, answered "approve" before the effect, the answer delivered to
 * the very Activity instance that asked.
 */
export function approvalsInTime(obs: Observation, e: EffectNote): ScreenRecord[] {
  const calls = callsOf(obs, e);
  const sent = calls.length === 0 ? -1 : Math.min(...calls.map((c) => c.step));
  return obs.screens.filter(
    (s) =>
      s.packageName === e.provider &&
      s.answer === 'approve' &&
      s.delivered &&
      s.step >= sent &&
      s.answerStep !== null &&
      s.answerStep < e.step,
  );
}

/**
 * A maximum bipartite matching (Kuhn): each left item to at most one right item and vice versa, as
 * many as possible. Returns, per left index, the right index it got (or -1).
 */
export function maxMatching(left: number, right: number, ok: (l: number, r: number) => boolean): number[] {
  const ofRight = new Array<number>(right).fill(-1);
  const ofLeft = new Array<number>(left).fill(-1);
  const edges: number[][] = [];
  for (let l = 0; l < left; l++) {
    const list: number[] = [];
    for (let r = 0; r < right; r++) if (ok(l, r)) list.push(r);
    edges.push(list);
  }
  const m: Matching = { edges, ofRight, ofLeft };
  for (let l = 0; l < left; l++) tryAssign(m, l, new Array<boolean>(right).fill(false));
  return ofLeft;
}

interface Matching {
  readonly edges: readonly (readonly number[])[];
  readonly ofRight: number[];
  readonly ofLeft: number[];
}

/** Kuhn's augmenting path from left item `l` (a module function: keep-names names a nested one per call). */
function tryAssign(m: Matching, l: number, seen: boolean[]): boolean {
  for (const r of m.edges[l] ?? []) {
    if (seen[r]) continue;
    seen[r] = true;
    const holder = m.ofRight[r] ?? -1;
    if (holder === -1 || tryAssign(m, holder, seen)) {
      m.ofRight[r] = l;
      m.ofLeft[l] = r;
      return true;
    }
  }
  return false;
}
