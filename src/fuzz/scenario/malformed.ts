/**
 * Structural malformed requests (spec §9 CETP-9-03, §5 CETP-5-13/5-14/5-15), derived from the wire
 * vocabulary instead of written by hand: for every method of src/protocol/methods.ts and every key
 * its request carries (src/protocol/keys.ts REQUEST_KEYS), the key missing, stored as every other
 * Bundle type (Android's getters would read the default), as a typed null, as a nested Bundle that
 * holds the right value one level down, as a PendingIntent or a file descriptor where none belongs,
 * as a Parcelable whose class the provider cannot load; then, by what the key holds, hostile values
 * of the right type — lone surrogates, NUL, bidi overrides, empty, 1 MiB and Binder-buffer-sized
 * strings, args at and one byte over max_request_bytes, JSON that is not an object, deeply nested
 * or prototype-polluting, versions out of order, Ints and Longs at their edges — and methods that do
 * not exist. Each case is aimed at a tool the scenario names, read or write.
 *
 * A case is an index into HOSTILE_CASES, so a scenario stores a batch as a list of small integers and
 * fast-check shrinks it like any other list. Many cases run in one world, one after another on one
 * actor's thread (cheap: one negotiation serves the batch), which is what lets a campaign send a
 * million of them. Whether a sent request really is malformed is not taken from this table: the
 * oracles (src/check/checkers/malformed.ts) read each request off the wire and judge it with the
 * protocol's own reader, so a case that happens to be valid is judged as a valid call.
 */
import { caches } from '../../base/caches.ts';
import type { BundleValueType } from '../../protocol/index.ts';
import {
  BUNDLE_KEYS,
  type BundleKey,
  LIMIT_MINIMUMS,
  REQUEST_KEYS,
  utf8Length,
  V2_METHOD_NAMES,
  type V2MethodName,
} from '../../protocol/index.ts';
import type { AppContext } from '../../sim/app/context.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { BINDER_BUFFER_BYTES } from '../../sim/process/process.ts';
import { Intent } from '../../sim/ui/intent.ts';
import { FLAG_IMMUTABLE } from '../../sim/ui/pending-intent.ts';

/** A batch of structural malformed calls to one provider, aimed at one of its tools. */
export interface HostileBatch {
  readonly kind: 'hostile-batch';
  readonly provider: string;
  readonly tool: string;
  /** Indices into HOSTILE_CASES, sent in order. */
  readonly cases: readonly number[];
}

/** The longest batch a scenario may hold (also the replay schema's bound). */
export const HOSTILE_BATCH_MAX = 256;

/** How a value is stored under a key. */
export type HostileValue =
  | { readonly as: 'missing' }
  | { readonly as: 'null' }
  | { readonly as: 'Int' | 'Long'; readonly value: number }
  | { readonly as: 'String'; readonly value: string }
  | { readonly as: 'IntArray'; readonly value: readonly number[] }
  | { readonly as: 'Boolean'; readonly value: boolean }
  /** A Bundle holding the key's valid value under the same key (a parser must not look inside). */
  | { readonly as: 'Bundle' }
  | { readonly as: 'PendingIntent' }
  | { readonly as: 'ParcelFileDescriptor' }
  /** A custom Parcelable of a class the provider's class loader does not have. */
  | { readonly as: 'Parcelable' }
  /**
   * The tool's own valid args, padded with JSON whitespace to `bytes` UTF-8 bytes: still valid JSON
   * and valid for the tool's schema and business rules, so only the size limit (CETP-4.1-08) refuses
   * it when `bytes` is over max_request_bytes.
   */
  | { readonly as: 'PaddedArgs'; readonly bytes: number };

export interface HostileCase {
  /** The method called: a V2 method, or one that does not exist. */
  readonly method: string;
  /** The key changed (null: the whole request, e.g. an unknown method or extra keys). */
  readonly key: string | null;
  readonly value: HostileValue;
  /** A short name for reports: `execute_tool/request_id=String:lone-surrogate`. */
  readonly label: string;
}

/** Strings that break naive text handling, by name. Built once: a 1 MiB string is cheap to share. */
const HOSTILE_STRINGS: readonly (readonly [string, string])[] = [
  ['empty', ''],
  ['lone-high-surrogate', '\uD800'],
  ['lone-low-surrogate', 'a\uDC00b'],
  ['nul', 'ab\u0000cd'],
  ['rtl-override', '\u202Egnp.exe\u202C'],
  ['zero-width-bom', '\uFEFF\u200B\u200D'],
  ['control-chars', '\u0007\u001b[2J\r\n'],
  ['over-ttle-threshold', 'x'.repeat(150_000)], // ~300 KB parcel: delivered, but big
  // A quarter of the Binder buffer (~250 KB parcel, over the TTLE threshold): delivered, and two
  // actors' in flight at once still fit beside their other calls.
  ['quarter-binder-buffer', 'y'.repeat(Math.floor(BINDER_BUFFER_BYTES / 8) - 4_096)],
  ['1mib', 'z'.repeat(1 << 20)], // a 2 MiB parcel: the Binder refuses it (TransactionTooLarge)
];

/** args strings for execute_tool: JSON that is not what a tool takes, and sizes at the limit. */
function hostileArgs(): (readonly [string, string])[] {
  const limit = LIMIT_MINIMUMS.max_request_bytes;
  const padded = (bytes: number) => {
    const shell = '{"symbol":""}';
    return `{"symbol":"${'A'.repeat(bytes - shell.length)}"}`;
  };
  const deep = 20_000;
  return [
    ['not-json', '{"symbol": '],
    ['json-null', 'null'],
    ['json-array', '[]'],
    ['json-string', '"AAPL"'],
    ['json-number-overflow', '{"symbol":"AAPL","price":1e400}'],
    ['proto-pollution', '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'],
    ['duplicate-keys', '{"symbol":"AAPL","symbol":"EVIL"}'],
    ['escaped-lone-surrogate', '{"symbol":"\\ud800"}'],
    ['deep-nesting', `${'['.repeat(deep)}${']'.repeat(deep)}`],
    ['at-max-request-bytes', padded(limit)],
    ['over-max-request-bytes', padded(limit + 1)],
  ];
}

/** Values of the right Bundle type that a reader must refuse (or must not choke on), by key content. */
function contentValues(key: BundleKey): HostileValue[] {
  const spec = BUNDLE_KEYS[key];
  const strings = (extra: readonly (readonly [string, string])[] = []) =>
    [...HOSTILE_STRINGS, ...extra].map(([, value]): HostileValue => ({ as: 'String', value }));
  switch (spec.content) {
    case 'protocol_version':
      return [0, 1, 3, -1, 2_147_483_647, -2_147_483_648].map((value) => ({ as: 'Int', value }));
    case 'epoch_ms':
      return [0, -1, Number.MIN_SAFE_INTEGER].map((value) => ({ as: 'Long', value }));
    case 'versions':
      return [[], [1, 2], [0], [-2], [2, 2], [2_147_483_647, 2], new Array<number>(4_096).fill(2)].map(
        (value) => ({ as: 'IntArray', value }),
      );
    case 'uuid':
      return strings([
        ['not-uuid', 'request-1'],
        ['uuid-with-nul', '00000000-0000-4000-8000-000000000001\u0000'],
        ['uuid-braced', '{00000000-0000-4000-8000-000000000001}'],
      ]);
    case 'tool_name':
      return strings([
        ['path', '../../etc/passwd'],
        ['tool-name-too-long', 'a'.repeat(300)],
      ]);
    case 'json':
      if (key === 'args') return strings(hostileArgs());
      return strings([
        ['not-json', '["async_operations"'],
        ['json-object', '{"async_operations":true}'],
        ['json-numbers', '[1,2,3]'],
      ]);
    default:
      return strings();
  }
}

/** The key's value stored as each other Bundle type, a typed null, missing, and system objects. */
function typeValues(key: BundleKey, required: boolean): HostileValue[] {
  const expected: BundleValueType = BUNDLE_KEYS[key].type;
  const out: HostileValue[] = [];
  if (required) out.push({ as: 'missing' });
  if (expected === 'String' || expected === 'IntArray') out.push({ as: 'null' });
  const others: HostileValue[] = [
    { as: 'Int', value: 2 },
    { as: 'Long', value: 2 },
    { as: 'String', value: '2' },
    { as: 'IntArray', value: [2, 1] },
    { as: 'Boolean', value: true },
    { as: 'Bundle' },
    { as: 'PendingIntent' },
    { as: 'ParcelFileDescriptor' },
    { as: 'Parcelable' },
  ];
  for (const v of others) if (v.as !== expected) out.push(v);
  return out;
}

function labelOf(method: string, key: string | null, value: HostileValue, name?: string): string {
  const what =
    value.as === 'missing' || value.as === 'null' || name === undefined ? value.as : `${value.as}:${name}`;
  return key === null ? `${method}/${what}` : `${method}/${key}=${what}`;
}

/** Names of the hostile values of contentValues, in the same order (for labels only). */
function contentNames(key: BundleKey): string[] {
  const spec = BUNDLE_KEYS[key];
  const names = (extra: readonly (readonly [string, string])[] = []) =>
    [...HOSTILE_STRINGS, ...extra].map(([name]) => name);
  switch (spec.content) {
    case 'protocol_version':
    case 'epoch_ms':
      return contentValues(key).map((v) => String((v as { value: number }).value));
    case 'versions':
      return ['empty', 'ascending', 'zero', 'negative', 'repeated', 'int-max', '4096-entries'];
    case 'uuid':
      return names([
        ['not-uuid', ''],
        ['uuid-with-nul', ''],
        ['uuid-braced', ''],
      ]);
    case 'tool_name':
      return names([
        ['path', ''],
        ['tool-name-too-long', ''],
      ]);
    case 'json':
      if (key === 'args') return names(hostileArgs());
      return names([
        ['not-json', ''],
        ['json-object', ''],
        ['json-numbers', ''],
      ]);
    default:
      return names();
  }
}

/** Methods that do not exist, or differ from one that does only in case, padding or a NUL. */
const UNKNOWN_METHODS = [
  'execute_tool_v3',
  'EXECUTE_TOOL',
  ' execute_tool',
  'execute_tool\u0000',
  '',
  'x'.repeat(4_096),
];

/** Unknown keys (ignored by Android and the protocol alike): the request stays valid. */
export const EXTRA_KEYS_LABEL = 'extra-keys';

function deriveCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const method of V2_METHOD_NAMES) {
    for (const req of REQUEST_KEYS[method]) {
      for (const value of typeValues(req.key, req.required))
        cases.push({ method, key: req.key, value, label: labelOf(method, req.key, value, typeName(value)) });
      const names = contentNames(req.key);
      contentValues(req.key).forEach((value, i) => {
        cases.push({ method, key: req.key, value, label: labelOf(method, req.key, value, names[i]) });
      });
    }
    // Unknown keys of every hostile type: to be ignored (CETP-9-03), never to break the call.
    cases.push({ method, key: null, value: { as: 'Bundle' }, label: `${method}/${EXTRA_KEYS_LABEL}` });
  }
  for (const method of UNKNOWN_METHODS) {
    const shown = method.length > 40 ? `${method.slice(0, 8)}…(${method.length})` : JSON.stringify(method);
    cases.push({ method, key: null, value: { as: 'missing' }, label: `unknown-method ${shown}` });
  }
  // Last, so the indices above stay what replays recorded: the aimed tool's own args at and just
  // over max_request_bytes (the negotiated value the reference answers: the minimum). Over the
  // limit, nothing but the size check (4.1-08) stands between the request and its execution.
  const limit = LIMIT_MINIMUMS.max_request_bytes;
  for (const [name, bytes] of [
    ['tool-args-at-max-request-bytes', limit],
    ['tool-args-over-max-request-bytes', limit + 1],
    ['tool-args-far-over-max-request-bytes', 2 * limit],
  ] as const) {
    const value: HostileValue = { as: 'PaddedArgs', bytes };
    cases.push({
      method: 'execute_tool',
      key: 'args',
      value,
      label: labelOf('execute_tool', 'args', value, name),
    });
  }
  return cases;
}

function typeName(value: HostileValue): string | undefined {
  switch (value.as) {
    case 'Int':
    case 'Long':
    case 'String':
    case 'Boolean':
      return JSON.stringify(value.value);
    case 'IntArray':
      return JSON.stringify(value.value);
    default:
      return undefined;
  }
}

/** Every structural malformed case, derived from the protocol's key tables (stable order). */
export const HOSTILE_CASES: readonly HostileCase[] = Object.freeze(deriveCases());

/** What the batch needs from the driver: its context, a session, a valid args string, the wire. */
export interface HostileHost {
  readonly ctx: AppContext;
  session(): Promise<string>;
  /** A valid args JSON for `tool` (the fixture's pool, first entry). */
  args(tool: string): string;
  /** An operation this actor started, if any (for get_operation / cancel_operation). */
  operationId(): string | null;
  /** The request_id of that operation, if any. */
  operationRid(): string | null;
  call(method: string, extras: Bundle | null): Promise<Bundle | null>;
}

/** Sends `batch.cases` one after another; closes every fd it created once its call is answered. */
export async function sendHostileBatch(host: HostileHost, batch: HostileBatch): Promise<void> {
  for (const index of batch.cases) {
    const c = HOSTILE_CASES[index % HOSTILE_CASES.length];
    if (!c) continue;
    const opened: { close(): void }[] = [];
    const extras = await baseRequest(host, c.method, batch.tool);
    if (c.key === null && c.label.endsWith(EXTRA_KEYS_LABEL)) addExtraKeys(host, extras, opened);
    else if (c.key !== null) store(host, extras, c.key, c.value, opened);
    await host.call(c.method, extras);
    for (const fd of opened) fd.close();
  }
}

/** A valid request for `method` (unknown methods get an execute_tool envelope). */
async function baseRequest(host: HostileHost, method: string, tool: string): Promise<Bundle> {
  const b = new Bundle();
  if (method === 'negotiate') {
    b.putIntArray('consumer_versions', [2, 1]);
    b.putString('consumer_capabilities', '[]');
    return b;
  }
  const operationId = host.operationId();
  const rid =
    (method === 'get_operation' || method === 'cancel_operation') && operationId !== null
      ? (host.operationRid() ?? host.ctx.seededUuid())
      : host.ctx.seededUuid();
  b.putInt('protocol_version', 2);
  b.putString('session_token', await host.session());
  b.putString('request_id', rid);
  b.putLong('deadline_at_ms', host.ctx.currentTimeMillis() + 30_000);
  if (method === 'get_operation' || method === 'cancel_operation') {
    b.putString('operation_id', operationId ?? `op-${host.ctx.seededUuid()}`);
  } else if (method !== 'get_provider_info' && method !== 'list_tools') {
    b.putString('tool_name', tool);
    b.putString('args', host.args(tool));
  }
  return b;
}

/** Stores `value` under `key`, replacing what the valid request held there. */
function store(host: HostileHost, b: Bundle, key: string, value: HostileValue, opened: { close(): void }[]) {
  switch (value.as) {
    case 'missing':
      b.remove(key);
      return;
    case 'null':
      if (BUNDLE_KEYS[key as BundleKey]?.type === 'IntArray') b.putIntArray(key, null);
      else b.putString(key, null);
      return;
    case 'Int':
      b.putInt(key, value.value);
      return;
    case 'Long':
      b.putLong(key, value.value);
      return;
    case 'String':
      b.putString(key, value.value);
      return;
    case 'IntArray':
      b.putIntArray(key, value.value);
      return;
    case 'Boolean':
      b.putBoolean(key, value.value);
      return;
    case 'Bundle': {
      // The valid value one level down, and a Bundle below that: nothing may read through it.
      const inner = new Bundle();
      const entry = b.getEntry(key);
      if (entry) inner.putEntry(key, entry);
      const deeper = new Bundle();
      deeper.putString(key, 'deeper');
      inner.putBundle('nested', deeper);
      b.putBundle(key, inner);
      return;
    }
    case 'PendingIntent':
      b.putPendingIntent(key, pendingIntent(host.ctx));
      return;
    case 'ParcelFileDescriptor': {
      const [read, write] = host.ctx.createPipe();
      opened.push(read, write);
      b.putParcelFileDescriptor(key, read);
      return;
    }
    case 'Parcelable':
      b.putParcelable(key, { className: 'com.evil.Exploit', fields: { run: 'Runtime.exec' } });
      return;
    case 'PaddedArgs':
      b.putString(key, paddedArgs(b.getString(key) ?? '{}', value.bytes));
      return;
  }
}

/**
 * Padded args texts (`valid` then spaces to `bytes` UTF-8 bytes; up to 2× max_request_bytes),
 * remembered: a text made anew per call is a rope every reader flattens into a copy of its own, and
 * a new string every long-string memo of the readers compares in full; the same text is one string.
 */
const padded = caches.memo<string, string>('fuzz/scenario/malformed: padded args texts', 64);

function paddedArgs(valid: string, bytes: number): string {
  return padded.get(`${bytes}|${valid}`, () => valid + ' '.repeat(Math.max(0, bytes - utf8Length(valid))));
}

/** Unknown keys of every Bundle type, system objects among them: all to be ignored. */
function addExtraKeys(host: HostileHost, b: Bundle, opened: { close(): void }[]) {
  b.putString('x_future_field', '\u202Eignored\uD800');
  b.putInt('x_priority', 3);
  b.putLong('x_epoch', -1);
  b.putBoolean('confirmed', true);
  b.putIntArray('x_ints', [1, 2, 3]);
  const nested = new Bundle();
  nested.putString('session_token', 'not-this-one');
  b.putBundle('x_nested', nested);
  b.putPendingIntent('x_resolution', pendingIntent(host.ctx));
  const [read, write] = host.ctx.createPipe();
  opened.push(read, write);
  b.putParcelFileDescriptor('x_fd', read);
  b.putParcelable('x_parcelable', { className: 'com.evil.Exploit', fields: {} });
}

/** A PendingIntent the calling app made (its own, so nothing the provider should ever launch). */
function pendingIntent(ctx: AppContext) {
  return ctx.getActivityPendingIntent(
    0,
    Intent.explicit(ctx.packageName, `${ctx.packageName}.Evil`, { data: 'evil://hostile' }),
    FLAG_IMMUTABLE,
  );
}

/** The cases that target `method` (for tests and reports). */
export function casesOf(method: V2MethodName | 'unknown'): number[] {
  const known = new Set<string>(V2_METHOD_NAMES);
  return HOSTILE_CASES.flatMap((c, i) =>
    method === 'unknown' ? (known.has(c.method) ? [] : [i]) : c.method === method ? [i] : [],
  );
}
