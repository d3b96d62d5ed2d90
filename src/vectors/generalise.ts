/**
 * Generalising what the reference provider answered into an expectation a different (conforming)
 * implementation also meets. Values that are the provider's own choice become matchers, by key:
 * tokens and operation ids are captured (and later occurrences compared with the capture), times
 * become their type, messages any string, a value the runner chose (a request id) a reference to
 * that variable, and an id built from the caller's UID a pattern. Everything else stays a literal:
 * that is what a conforming fixture must answer. Sources refine further with `override`.
 */
import type { Expect, JsonExpect } from './format.ts';
import { isMatcher } from './matchers.ts';
import type { Actual, Vars } from './typed.ts';

/**
 * Keys whose values are provider-chosen secrets or handles, captured under the key's name — and a
 * file result's declared size and digest, which a later read-fd compares with the bytes.
 */
const CAPTURED = new Set(['session_token', 'resume_token', 'operation_id', 'sha256', 'size_bytes']);
/** Keys whose text is the provider's wording: any string. */
const WORDING = new Set(['error_message', 'message', 'revision', 'description_for_user']);

const isTimeKey = (key: string) => key.endsWith('_ms') || key.endsWith('_at');

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

class Generaliser {
  /** Captures made so far in this expectation (value → name), beside the run's variables. */
  private readonly pending = new Map<string, unknown>();

  constructor(
    private readonly vars: Vars,
    private readonly captured: ReadonlySet<string>,
  ) {}

  private refFor(value: string): string | null {
    if (value.length < 16) return null;
    for (const [name, v] of [...this.vars, ...this.pending]) if (v === value) return name;
    return null;
  }

  private uidPattern(value: string): Expect | null {
    const uid = this.vars.get('caller_uid');
    if (typeof uid !== 'string' || !value.includes(uid)) return null;
    return { $match: 'regex', pattern: value.split(uid).map(escapeRegex).join('[0-9]+') };
  }

  /** A string chosen by the provider or the runner, or null when it stays a literal. */
  private choice(key: string, value: string): Expect | null {
    const ref = this.refFor(value);
    if (ref !== null) return { $match: 'ref', name: ref };
    if (this.captured.has(key)) {
      this.pending.set(key, value);
      return { $match: 'capture', as: key };
    }
    if (WORDING.has(key)) return { $match: 'type', type: 'string' };
    return this.uidPattern(value);
  }

  json(value: unknown, key: string): JsonExpect {
    if (typeof value === 'string') {
      if (isTimeKey(key)) return { $match: 'type', type: 'string' };
      return this.choice(key, value) ?? value;
    }
    if (typeof value === 'number') {
      if (this.captured.has(key)) return { $match: 'capture', as: key };
      return isTimeKey(key) ? { $match: 'type', type: 'integer' } : value;
    }
    if (Array.isArray(value)) return value.map((v) => this.json(v, key));
    if (typeof value === 'object' && value !== null) {
      if (isMatcher(value)) throw new Error(`a reply contains an object with a '$match' key (${key})`);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.json(v, k)]));
    }
    return value;
  }

  typed(actual: Actual, key: string): Expect {
    switch (actual.type) {
      case 'bundle':
        return {
          type: 'bundle',
          value: Object.fromEntries(Object.entries(actual.value).map(([k, v]) => [k, this.typed(v, k)])),
        };
      case 'string': {
        const text = actual.value as string;
        const json = /^[[{]/.test(text) ? parseJson(text) : undefined;
        if (json !== undefined) return { type: 'string', json: this.json(json, key) };
        return this.choice(key, text) ?? { type: 'string', value: text };
      }
      case 'long':
        return isTimeKey(key)
          ? { $match: 'type', type: 'long' }
          : { type: 'long', value: actual.value as string };
      case 'int':
        return isTimeKey(key)
          ? { $match: 'type', type: 'int' }
          : { type: 'int', value: actual.value as number };
      case 'boolean':
        return { type: 'boolean', value: actual.value as boolean };
      case 'int[]':
        return { type: 'int[]', value: actual.value as number[] };
      default:
        return actual;
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The expectation recorded for a reply the reference gave (or a request the reference consumer
 * sent: then `alsoCaptured` adds the keys the consumer chooses, such as request_id, and `literal`
 * the keys whose value a scripted reply fixed, such as the resume_token it must echo).
 */
export function generalise(
  actual: Actual,
  vars: Vars,
  alsoCaptured: readonly string[] = [],
  literal: readonly string[] = [],
): Expect {
  const captured = [...CAPTURED, ...alsoCaptured].filter((key) => !literal.includes(key));
  return new Generaliser(vars, new Set(captured)).typed(actual, '');
}

/**
 * Replaces (or adds) the expectation at a dot path of reply keys, descending into a JSON string's
 * content: `data.value.alert_id`, `error_message`.
 */
export function override(e: Expect, path: string, replacement: unknown): Expect {
  const [head, ...rest] = path.split('.');
  if (head === undefined || head === '') return replacement as Expect;
  if (isMatcher(e) || (e.type !== 'bundle' && !('json' in e)))
    throw new Error(`override ${path}: the expectation there is not a Bundle or JSON text`);
  if (e.type === 'bundle') {
    const inner = e.value[head];
    const next =
      rest.length === 0 ? replacement : override(inner ?? { $match: 'any' }, rest.join('.'), replacement);
    return { type: 'bundle', value: { ...e.value, [head]: next as Expect } };
  }
  return {
    type: 'string',
    json: overrideJson((e as { json: JsonExpect }).json, [head, ...rest], replacement),
  };
}

function overrideJson(e: JsonExpect, path: readonly string[], replacement: unknown): JsonExpect {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  if (Array.isArray(e)) {
    const copy = [...e];
    copy[Number(head)] = overrideJson(copy[Number(head)], rest, replacement);
    return copy;
  }
  if (typeof e !== 'object' || e === null || isMatcher(e)) throw new Error(`override: no object at ${head}`);
  const obj = e as Record<string, unknown>;
  return { ...obj, [head]: overrideJson(obj[head], rest, replacement) };
}
