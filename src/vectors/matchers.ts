/**
 * Matching a reply against a vector's expectation. Expectations are a subset by default (a provider
 * may add keys to a Bundle or a JSON object; arrays match element by element); a leaf is a typed
 * literal or one matcher of the closed set in format.ts. A Bundle string holding JSON is matched by
 * its parsed content (`{"type": "string", "json": …}`). Captures bind only when the whole
 * expectation matches, so a failed `anyOf` branch leaves no binding behind.
 */

import { isDeepStrictEqual } from 'node:util';
import { caches } from '../base/caches.ts';
import { Ajv2020, type ValidateFunction } from '../protocol/schemas/ajv.ts';
import type { Expect, JsonExpect, Matcher } from './format.ts';
import type { Actual, Vars } from './typed.ts';

export interface Mismatch {
  readonly path: string;
  readonly message: string;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SHA256 = /^[0-9a-f]{64}$/;

const ajv = caches.lazy('vectors/matchers: Ajv', () => new Ajv2020({ strict: false, allErrors: false }));
const compiled = caches.map<string, ValidateFunction>('vectors/matchers: validators by schema JSON', 512);

function schemaValidator(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.get().compile(schema as object);
    compiled.set(key, validate);
  }
  return validate;
}

export function isMatcher(value: unknown): value is Matcher {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '$match' in value;
}

/** One attempt to match: the mismatches found and the captures it would bind. */
class Attempt {
  readonly mismatches: Mismatch[] = [];
  readonly bound = new Map<string, unknown>();

  constructor(readonly vars: Vars) {}

  fail(path: string, message: string): void {
    this.mismatches.push({ path, message });
  }

  lookup(name: string): { found: boolean; value: unknown } {
    if (this.bound.has(name)) return { found: true, value: this.bound.get(name) };
    return { found: this.vars.has(name), value: this.vars.get(name) };
  }

  /** Runs `body` in a child attempt; keeps its bindings only if it matched. */
  branch(body: (child: Attempt) => void): boolean {
    const child = new Attempt(new Map([...this.vars, ...this.bound]));
    body(child);
    if (child.mismatches.length > 0) return false;
    for (const [k, v] of child.bound) this.bound.set(k, v);
    return true;
  }
}

function show(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function jsonTypeMatches(type: string, value: unknown): boolean {
  if (type === 'integer') return Number.isInteger(value);
  return jsonType(value) === type;
}

/** The JSON payload of a Bundle value, for matchers that look at the value itself. */
function payload(actual: Actual): unknown {
  if ('value' in actual && actual.type !== 'bundle') return actual.value;
  if (actual.type === 'null') return null;
  return actual;
}

function numeric(value: unknown): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value)) return Number(value);
  return null;
}

/**
 * The matchers, shared by both levels. `value` is the JSON value (or a Bundle value's payload);
 * `typeOf` says whether `type` means a Java type (Bundle level) or a JSON type.
 */
function matchMatcher(
  m: Matcher,
  present: boolean,
  value: unknown,
  typeOk: (type: string) => boolean,
  path: string,
  at: Attempt,
  again: (e: unknown, child: Attempt) => void,
): void {
  if (m.$match === 'absent') {
    if (present) at.fail(path, `expected no value, got ${show(value)}`);
    return;
  }
  if (!present) {
    at.fail(path, `missing (expected ${m.$match} matcher)`);
    return;
  }
  const str = typeof value === 'string' ? value : null;
  switch (m.$match) {
    case 'any':
      return;
    case 'type':
      if (!typeOk(m.type)) at.fail(path, `expected type ${m.type}, got ${show(value)}`);
      return;
    case 'regex':
      if (str === null || !new RegExp(`^(?:${m.pattern})$`, 'u').test(str))
        at.fail(path, `expected a string matching /${m.pattern}/, got ${show(value)}`);
      return;
    case 'uuid':
      if (str === null || !UUID.test(str)) at.fail(path, `expected a UUID, got ${show(value)}`);
      return;
    case 'sha256':
      if (str === null || !SHA256.test(str))
        at.fail(path, `expected a lowercase SHA-256 hex, got ${show(value)}`);
      return;
    case 'range': {
      const n = numeric(value);
      if (n === null || (m.min !== undefined && n < m.min) || (m.max !== undefined && n > m.max))
        at.fail(path, `expected a number in [${m.min ?? '-∞'}, ${m.max ?? '∞'}], got ${show(value)}`);
      return;
    }
    case 'oneOf':
      if (!m.values.some((v) => isDeepStrictEqual(v, value)))
        at.fail(path, `expected one of ${show(m.values)}, got ${show(value)}`);
      return;
    case 'jsonSchema': {
      let json = value;
      if (str !== null && typeOk('string')) {
        try {
          json = JSON.parse(str);
        } catch {
          at.fail(path, 'expected JSON text');
          return;
        }
      }
      const validate = schemaValidator(m.schema);
      if (!validate(json))
        at.fail(
          path,
          `does not match the schema: ${validate.errors?.[0]?.instancePath} ${validate.errors?.[0]?.message}`,
        );
      return;
    }
    case 'capture':
      at.bound.set(m.as, value);
      return;
    case 'ref': {
      const bound = at.lookup(m.name);
      if (!bound.found) at.fail(path, `variable '${m.name}' is not bound`);
      else if (!isDeepStrictEqual(bound.value, value))
        at.fail(path, `expected the value of '${m.name}' (${show(bound.value)}), got ${show(value)}`);
      return;
    }
    case 'anyOf':
      if (!m.of.some((e) => at.branch((child) => again(e, child))))
        at.fail(path, `matches none of the ${m.of.length} allowed outcomes`);
      return;
  }
}

function matchJson(e: JsonExpect, actual: unknown, present: boolean, path: string, at: Attempt): void {
  if (isMatcher(e)) {
    matchMatcher(
      e,
      present,
      actual,
      (t) => jsonTypeMatches(t, actual),
      path,
      at,
      (x, child) => matchJson(x, actual, present, path, child),
    );
    return;
  }
  if (!present) {
    at.fail(path, `missing (expected ${show(e)})`);
    return;
  }
  if (Array.isArray(e)) {
    if (!Array.isArray(actual) || actual.length !== e.length) {
      at.fail(path, `expected an array of ${e.length}, got ${show(actual)}`);
      return;
    }
    e.forEach((item, i) => {
      matchJson(item, actual[i], true, `${path}[${i}]`, at);
    });
    return;
  }
  if (typeof e === 'object' && e !== null) {
    if (jsonType(actual) !== 'object') {
      at.fail(path, `expected an object, got ${show(actual)}`);
      return;
    }
    const obj = actual as Record<string, unknown>;
    for (const [k, v] of Object.entries(e)) matchJson(v, obj[k], Object.hasOwn(obj, k), `${path}.${k}`, at);
    return;
  }
  if (!isDeepStrictEqual(e, actual)) at.fail(path, `expected ${show(e)}, got ${show(actual)}`);
}

function matchTyped(e: Expect, actual: Actual | undefined, path: string, at: Attempt): void {
  if (isMatcher(e)) {
    const value = actual === undefined ? undefined : payload(actual);
    matchMatcher(
      e,
      actual !== undefined,
      value,
      (t) => actual?.type === t,
      path,
      at,
      (x, child) => matchTyped(x as Expect, actual, path, child),
    );
    return;
  }
  if (actual === undefined) {
    at.fail(path, `missing (expected ${e.type})`);
    return;
  }
  if (actual.type !== e.type) {
    at.fail(path, `expected a ${e.type}, got a ${actual.type}`);
    return;
  }
  if (e.type === 'bundle' && actual.type === 'bundle') {
    for (const [k, v] of Object.entries(e.value)) matchTyped(v, actual.value[k], `${path}.${k}`, at);
    return;
  }
  if ('json' in e) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(payload(actual)));
    } catch {
      at.fail(path, 'expected JSON text');
      return;
    }
    matchJson(e.json, parsed, true, `${path}<json>`, at);
    return;
  }
  const { type: _e, ...want } = e as Record<string, unknown>;
  const { type: _a, ...got } = actual as Record<string, unknown>;
  for (const [k, v] of Object.entries(want))
    if (!isDeepStrictEqual(v, got[k]))
      at.fail(path, `expected ${k === 'value' ? '' : `${k} `}${show(v)}, got ${show(got[k])}`);
}

/** Matches `actual` (undefined: absent); on success binds the captures into `vars`. */
export function match(e: Expect, actual: Actual | undefined, vars: Vars, path = '$'): Mismatch[] {
  const at = new Attempt(vars);
  matchTyped(e, actual, path, at);
  if (at.mismatches.length === 0) for (const [k, v] of at.bound) vars.set(k, v);
  return at.mismatches;
}

/** Matches a plain JSON value (undefined: absent) without binding anything. */
export function matchJsonValue(e: JsonExpect, actual: unknown, vars: Vars, path = '$'): Mismatch[] {
  const at = new Attempt(vars);
  matchJson(e, actual, actual !== undefined, path, at);
  return at.mismatches;
}
