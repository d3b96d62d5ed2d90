/**
 * Identifiers on the wire (spec §3.1, §3.2, §4.1): tool names, scope names, provider_id and its
 * package namespace, and request_id UUIDs. The patterns here are also the `pattern` of the
 * corresponding JSON Schema properties, so the two can never disagree.
 */
import { validate as isRfcUuid } from 'uuid';
import { caches } from '../base/caches.ts';
import { type IssueCode, issue, type ProtocolIssue } from './issues.ts';
import type { RuleId } from './rule-ids.ts';

/** CETP-3.1-03: `[a-z][a-z0-9_]{0,63}`, anchored. */
export const TOOL_NAME_PATTERN = '^[a-z][a-z0-9_]{0,63}$';
/** CETP-3.2-03: `[a-z][a-z0-9_.-]{0,127}`, anchored. */
export const SCOPE_NAME_PATTERN = '^[a-z][a-z0-9_.-]{0,127}$';
/**
 * An Android package name (two or more dot-separated Java identifiers). provider_id is either the
 * package name or lies under it (CETP-3.1-02), so it has the same shape.
 */
export const PACKAGE_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+$';

/**
 * JSON texts of long strings that issue messages quote. The malformed property sends the same
 * hostile strings (150 KB – 1 MiB) run after run, and quoting one costs a scan and a copy of it
 * (issue 37: most of the protocol reader's time in that property). Keys longer than V8's hash
 * limit hash by length, so a lookup of the same string is cheap.
 */
const quotedLong = caches.memo<string, string>('protocol/names: JSON texts of long quoted strings', 16);
/** Lower-cased long strings (a hostile request_id of 150 KB – 1 MiB is lower-cased by every reader). */
const lowerLong = caches.memo<string, string>('protocol/names: long strings lower-cased', 16);

/** Strings from this length on are remembered (each a few KB or more: counted in 16s). */
const LONG = 4_096;

/** `JSON.stringify(value)`, remembered for long strings. */
export function quoted(value: string): string {
  return value.length < LONG ? JSON.stringify(value) : quotedLong.get(value, (v) => JSON.stringify(v));
}

/** `value.toLowerCase()`, remembered for long strings. */
export function lowerCased(value: string): string {
  return value.length < LONG ? value.toLowerCase() : lowerLong.get(value, (v) => v.toLowerCase());
}

/**
 * Keys `${prefix}${last}` whose last part is long, made once per (last, prefix): a key built anew
 * is a rope that every Map lookup flattens into a copy of its own (a hostile 1 MiB request_id cost
 * ~0.8 ms per lookup of a key that holds it). The strings are the same as the concatenation's: only
 * the copies go.
 */
const joinedLong = caches.memo<string, Map<string, string>>(
  'protocol/names: keys ending in a long string',
  8,
);
/** Prefixes kept per long string (each key is as long as the string: bounded in memory too). */
const PREFIXES_PER_LONG = 8;

/** `${prefix}${last}`, one flat string per (prefix, long `last`) pair. */
export function joinedKey(prefix: string, last: string): string {
  if (last.length < LONG) return `${prefix}${last}`;
  const byPrefix = joinedLong.get(last, () => new Map<string, string>());
  let key = byPrefix.get(prefix);
  if (key === undefined) {
    key = `${prefix}${last}`;
    if (byPrefix.size >= PREFIXES_PER_LONG) byPrefix.clear();
    byPrefix.set(prefix, key);
  }
  return key;
}

const PACKAGE_NAME_RE = new RegExp(PACKAGE_NAME_PATTERN);
const NAMESPACE_SUFFIX_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;

/** A name's test, and its check: an issue citing `rule` when the name does not match `pattern`. */
function namePattern(what: string, pattern: string, code: IssueCode, rule: RuleId) {
  const re = new RegExp(pattern);
  const test = (name: string): boolean => re.test(name);
  const check = (name: string, path?: string): ProtocolIssue[] =>
    test(name) ? [] : [issue(code, `${what} ${quoted(name)} does not match ${pattern}`, [rule], path)];
  return { test, check };
}

const TOOL_NAME = namePattern('tool name', TOOL_NAME_PATTERN, 'invalid_tool_name', 'CETP-3.1-03');
const SCOPE_NAME = namePattern('scope name', SCOPE_NAME_PATTERN, 'invalid_scope_name', 'CETP-3.2-03');
export const isToolName = TOOL_NAME.test;
export const checkToolName = TOOL_NAME.check;
export const isScopeName = SCOPE_NAME.test;
export const checkScopeName = SCOPE_NAME.check;

export function isPackageName(name: string): boolean {
  return PACKAGE_NAME_RE.test(name);
}

/**
 * CETP-3.1-02: provider_id is the package name or lies in its namespace, i.e. starts with
 * `packageName + '.'` followed by more identifier segments. A plain string prefix is not enough:
 * `com.example.application` is NOT under `com.example.app` (NOTES "provider_id spoofing").
 */
export function isProviderIdInNamespace(providerId: string, packageName: string): boolean {
  if (providerId === packageName) return true;
  const prefix = `${packageName}.`;
  return providerId.startsWith(prefix) && NAMESPACE_SUFFIX_RE.test(providerId.slice(prefix.length));
}

export function checkProviderId(providerId: string, packageName: string, path?: string): ProtocolIssue[] {
  if (isProviderIdInNamespace(providerId, packageName)) return [];
  return [
    issue(
      'provider_id_outside_namespace',
      `provider_id ${JSON.stringify(providerId)} is neither the package name ${JSON.stringify(packageName)} nor under its namespace`,
      ['CETP-3.1-02'],
      path,
    ),
  ];
}

/**
 * CETP-4.1-03: a UUID in the canonical 8-4-4-4-12 hex form, either case, with RFC 9562 version and
 * variant bits (the `uuid` package's validate; the nil and max UUIDs are accepted too).
 */
export function isUuid(value: string): boolean {
  return isRfcUuid(value);
}

export function checkRequestId(value: string, path = 'request_id'): ProtocolIssue[] {
  if (isUuid(value)) return [];
  return [issue('invalid_uuid', `request_id ${quoted(value)} is not a UUID`, ['CETP-4.1-03'], path)];
}

/**
 * The spec does not say whether request ids compare case-sensitively (NOTES, lower priority). The
 * reference reading: a UUID names one value whatever its case, so dedup keys use the lowercase form.
 */
export function normalizeUuid(value: string): string {
  return lowerCased(value);
}
