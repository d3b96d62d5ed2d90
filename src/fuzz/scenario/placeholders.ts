/**
 * Placeholders in a fixture's args pools, filled in per call:
 * - `$UID` becomes the calling app's UID (payments accounts are per UID);
 * - `$OWN:field` becomes `field` of the caller's latest successful result that had one (e.g. the
 *   alert it created last), so a tool that acts on the caller's own objects gets called on one that
 *   exists. Before the caller owns one it becomes the fallback the fixture itself gives: the value of
 *   `field` in the first entry of the same pool that states it literally (alerts' delete_alert pool
 *   `[{ alert_id: '$OWN:alert_id' }, { alert_id: 'ALRT-1' }, …]` falls back to 'ALRT-1', a notes
 *   pool to its own 'NOTE-1'). A pool without such an entry is refused when the fixture is checked
 *   (ownPlaceholderIssues, src/harness/subjects.ts): there is no right object to guess;
 * - `$OTHER:field` becomes `field` of another actor's latest successful result that had one (misuse:
 *   reading or deleting another caller's object by its real id, e.g. a uuid no literal guesses),
 *   with the same fallback as `$OWN:` until another actor owns one.
 */
import type { JsonValue } from '../../base/json.ts';

export const UID_PLACEHOLDER = '$UID';
const OWN_PREFIX = '$OWN:';
const OTHER_PREFIX = '$OTHER:';
/** `$OWN:` or `$OTHER:` and a field name (what follows the name is not part of it). */
const OWN_PLACEHOLDER = /\$(OWN|OTHER):([a-z_][a-z0-9_]*)/g;

/** Whether args JSON holds an `$OWN:` or `$OTHER:` placeholder. */
export const hasPlaceholder = (json: string): boolean =>
  json.includes(OWN_PREFIX) || json.includes(OTHER_PREFIX);

/** A pool whose `$OWN:field` has nothing to fall back on (the fixture was not checked). */
export class OwnPlaceholderError extends Error {
  override readonly name = 'OwnPlaceholderError';
}

/** The string values `field` has anywhere in `value` (objects searched depth first, in key order). */
function literals(value: JsonValue, field: string, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) literals(v, field, out);
  else if (typeof value === 'object' && value !== null)
    for (const [key, v] of Object.entries(value)) {
      if (key === field && typeof v === 'string' && !hasPlaceholder(v)) out.push(v);
      else if (typeof v === 'object' && v !== null) literals(v, field, out);
    }
  return out;
}

/** What `$OWN:field` in `pool` stands for before the caller owns one, or undefined (none given). */
export function ownFallback(pool: readonly JsonValue[], field: string): string | undefined {
  for (const entry of pool) {
    const [first] = literals(entry, field);
    if (first !== undefined) return first;
  }
  return undefined;
}

/** A JSON string's content for `text` (quotes and backslashes escaped), to splice into JSON text. */
const jsonText = (text: string): string => JSON.stringify(text).slice(1, -1);

/** No value for any field (fillArgs' default; a module function, so keep-names does not name one per call). */
function noValue(_field: string): string | undefined {
  return undefined;
}

function fillUid(text: string, uid: number): string {
  return text.replaceAll(UID_PLACEHOLDER, String(uid));
}

/**
 * An args pool entry's JSON (an entry of `pool`) with its placeholders filled in: `own` answers
 * `$OWN:field`, `other` `$OTHER:field` (another actor's), each falling back on the pool's literal.
 */
export function fillArgs(
  json: string,
  uid: number,
  own: (field: string) => string | undefined = noValue,
  pool: readonly JsonValue[] = [],
  other: (field: string) => string | undefined = noValue,
): string {
  const filled = fillUid(json, uid);
  if (!hasPlaceholder(filled)) return filled;
  return filled.replace(OWN_PLACEHOLDER, (_, kind: string, field: string) => {
    const value = (kind === 'OWN' ? own(field) : other(field)) ?? ownFallback(pool, field);
    if (value === undefined)
      throw new OwnPlaceholderError(
        `$${kind}:${field} has no fallback: no entry of its pool gives ${field} literally`,
      );
    return jsonText(fillUid(value, uid));
  });
}

/** Each `$OWN:` placeholder of a fixture's pools that cannot be filled: its path, and why. */
export function ownPlaceholderIssues(
  tools: Readonly<Record<string, readonly JsonValue[]>>,
): { readonly path: string; readonly message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const visit = (value: JsonValue, path: string, tool: string, pool: readonly JsonValue[]): void => {
    if (Array.isArray(value)) for (const [i, v] of value.entries()) visit(v, `${path}[${i}]`, tool, pool);
    else if (typeof value === 'object' && value !== null)
      for (const [key, v] of Object.entries(value)) visit(v, `${path}.${key}`, tool, pool);
    else if (typeof value === 'string' && hasPlaceholder(value)) {
      const named = [...value.matchAll(OWN_PLACEHOLDER)].length;
      if (named !== value.split(OWN_PREFIX).length + value.split(OTHER_PREFIX).length - 2) {
        issues.push({
          path,
          message: `${JSON.stringify(value)}: ${OWN_PREFIX} must be followed by a field name in snake_case (${OWN_PREFIX}note_id)`,
        });
        return;
      }
      for (const [, kind, field] of value.matchAll(OWN_PLACEHOLDER))
        if (field !== undefined && ownFallback(pool, field) === undefined)
          issues.push({
            path,
            message:
              `$${kind}:${field} has nothing to stand for it until the caller owns one: add an entry ` +
              `that gives ${field} literally to tools.${tool} (e.g. { "${field}": "…" }), used until then`,
          });
    }
  };
  for (const [tool, pool] of Object.entries(tools))
    for (const [i, entry] of pool.entries()) visit(entry, `tools.${tool}[${i}]`, tool, pool);
  return issues;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The string fields of the result a successful reply's `data` carries, for `$OWN:field`: an
 * execute_tool success is `{kind:'inline', value:{…}}`, a get_operation of a succeeded operation
 * `{state:'succeeded', result:{kind:'inline', value:{…}}}`. A file result's content is not read.
 */
export function resultFields(data: unknown): [string, string][] {
  const result = isObject(data) && data.state === 'succeeded' ? data.result : data;
  if (!isObject(result) || result.kind !== 'inline' || !isObject(result.value)) return [];
  return Object.entries(result.value).filter((e): e is [string, string] => typeof e[1] === 'string');
}

/**
 * The string fields anywhere in what a consumer handed its agent (depth first, the first of each
 * name): a consumer's outcome shape is its own, so the result's fields are looked for at any depth.
 */
export function outcomeFields(outcome: unknown, out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(outcome)) for (const v of outcome) outcomeFields(v, out);
  else if (isObject(outcome))
    for (const [key, v] of Object.entries(outcome)) {
      if (typeof v === 'string') {
        if (!out.has(key)) out.set(key, v);
      } else outcomeFields(v, out);
    }
  return out;
}
