/**
 * Typed Bundle values between the vector format and the simulation's android.os.Bundle: building
 * the extras a step sends (resolving variables and clock-relative times) and reading a reply into
 * the tagged form the matchers compare. The simulated Bundle holds the types CETP uses (Int, Long,
 * String, int[], Boolean, Bundle, PendingIntent, ParcelFileDescriptor); a vector that sends another
 * Java type (double, bytes, string[]…) needs a device runner — `unsupportedTypes` names them so the
 * simulation runner skips such a vector instead of sending something else. A consumer vector's
 * scripted reply may also carry a PendingIntent, which only its runner can create (with the helper
 * app): `ResolveContext.pendingIntent` hands over the token made for that value.
 */
import { Bundle } from '../sim/binder/bundle.ts';
import type { ParcelFileDescriptor } from '../sim/fd/fd.ts';
import type { PendingIntent } from '../sim/ui/pending-intent.ts';
import type { PendingIntentValue, ReplyValue, SendValue, StringPart } from './format.ts';

/** Variables bound during a vector run: fresh UUIDs, built-ins and captured values. */
export type Vars = Map<string, unknown>;

/** A reply value as the matchers see it: the Java type and a JSON-able payload. */
export type Actual =
  | { readonly type: 'int' | 'boolean' | 'string' | 'int[]' | 'long'; readonly value: unknown }
  | { readonly type: 'null' }
  | { readonly type: 'bundle'; readonly value: Readonly<Record<string, Actual>> }
  | { readonly type: 'pending_intent'; readonly creator: 'provider' | 'other'; readonly immutable: boolean }
  | { readonly type: 'fd'; readonly read_only: boolean };

/** What a runner needs to resolve values: variables and the wall clock. */
export interface ResolveContext {
  readonly vars: Vars;
  nowMs(): number;
  /** Opens a blob of the corpus read-only (a scripted provider's file result); absent: no fds. */
  openBlob?(sha256: string, size: number): ParcelFileDescriptor;
  /** The token a scripted reply's PendingIntent value stands for (created beforehand); absent: none. */
  pendingIntent?(value: PendingIntentValue): PendingIntent;
}

export class UnboundVariable extends Error {
  override readonly name = 'UnboundVariable';
}

function lookup(vars: Vars, name: string): unknown {
  if (!vars.has(name)) throw new UnboundVariable(`variable '${name}' is not bound`);
  return vars.get(name);
}

function composed(parts: readonly StringPart[], vars: Vars): string {
  return parts.map((p) => (typeof p === 'string' ? p : String(lookup(vars, p.ref)))).join('');
}

const SIMULATED: ReadonlySet<string> = new Set([
  'int',
  'long',
  'boolean',
  'string',
  'int[]',
  'bundle',
  'null',
]);

/** The value types in `extras` the simulated Bundle cannot hold (empty: the step can run here). */
export function unsupportedTypes(extras: Readonly<Record<string, SendValue>> | null): string[] {
  const found = new Set<string>();
  const visit = (values: Readonly<Record<string, SendValue>>) => {
    for (const v of Object.values(values)) {
      if (!SIMULATED.has(v.type)) found.add(v.type);
      if (v.type === 'bundle' && 'value' in v) visit(v.value);
    }
  };
  if (extras) visit(extras);
  return [...found].sort();
}

/** Puts one typed value into `b` with the Bundle.putX its type names. */
function put(b: Bundle, key: string, v: ReplyValue, ctx: ResolveContext): void {
  if ('ref' in v) {
    b.putString(key, String(lookup(ctx.vars, v.ref)));
    return;
  }
  if ('parts' in v) {
    b.putString(key, composed(v.parts, ctx.vars));
    return;
  }
  if ('now_plus_ms' in v) {
    b.putLong(key, ctx.nowMs() + v.now_plus_ms);
    return;
  }
  switch (v.type) {
    case 'int':
      b.putInt(key, v.value);
      return;
    case 'long':
      b.putLong(key, Number(v.value));
      return;
    case 'boolean':
      b.putBoolean(key, v.value);
      return;
    case 'string':
      b.putString(key, v.value);
      return;
    case 'int[]':
      b.putIntArray(key, v.value);
      return;
    case 'null':
      b.putString(key, null);
      return;
    case 'bundle':
      b.putBundle(key, toBundle(v.value, ctx));
      return;
    case 'fd':
      if (!ctx.openBlob) throw new Error('this runner sends no file descriptors');
      b.putParcelFileDescriptor(key, ctx.openBlob(v.sha256, v.size));
      return;
    case 'pending_intent':
      if (!ctx.pendingIntent) throw new Error('this runner sends no PendingIntents');
      b.putPendingIntent(key, ctx.pendingIntent(v));
      return;
    default:
      throw new Error(`the simulated Bundle has no ${v.type} values`);
  }
}

export function toBundle(extras: Readonly<Record<string, ReplyValue>>, ctx: ResolveContext): Bundle {
  const b = new Bundle();
  for (const [key, v] of Object.entries(extras)) put(b, key, v, ctx);
  return b;
}

/** What the runner knows to describe PendingIntents and fds in a reply. */
export interface ReadContext {
  readonly providerPackage: string;
}

function pendingIntent(pi: PendingIntent, ctx: ReadContext): Actual {
  return {
    type: 'pending_intent',
    creator: pi.getCreatorPackage() === ctx.providerPackage ? 'provider' : 'other',
    immutable: pi.isImmutable(),
  };
}

function fd(pfd: ParcelFileDescriptor): Actual {
  return { type: 'fd', read_only: pfd.mode === 'r' };
}

/** A reply Bundle in tagged form (a null Bundle is `{type: 'null'}`). */
export function fromBundle(b: Bundle | null, ctx: ReadContext): Actual {
  if (b === null) return { type: 'null' };
  const value: Record<string, Actual> = {};
  b.forEachEntry((e, key) => {
    if (e.value === null) value[key] = { type: 'null' };
    else if (e.type === 'Bundle') value[key] = fromBundle(e.value as Bundle, ctx);
    else if (e.type === 'PendingIntent') value[key] = pendingIntent(e.value as PendingIntent, ctx);
    else if (e.type === 'ParcelFileDescriptor') value[key] = fd(e.value as ParcelFileDescriptor);
    else if (e.type === 'Long') value[key] = { type: 'long', value: String(e.value) };
    else if (e.type === 'IntArray') value[key] = { type: 'int[]', value: [...(e.value as number[])] };
    else
      value[key] = {
        type: e.type === 'Int' ? 'int' : e.type === 'Boolean' ? 'boolean' : 'string',
        value: e.value,
      };
  });
  return { type: 'bundle', value };
}
