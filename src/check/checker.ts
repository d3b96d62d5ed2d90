/**
 * The oracles' contract: a checker reads a finished run's Observation and returns violations, each
 * naming the rule ids it guards and carrying evidence (trace event seqs, call ids) that proves it.
 * Failures are classified (TigerBeetle-style): correctness (a rule was broken), liveness (work never
 * finished), crash (a process or the harness died where it must not).
 */

import type { JsonValue } from '../base/json.ts';
import type { Readings } from '../subjects/subjects.ts';
import type { Observation } from './observation.ts';

/** Groups items by a string key, keeping first-seen order (observation.ts, which indexes calls by it). */
export { groupBy } from './observation.ts';

export type FailureClass = 'correctness' | 'liveness' | 'crash';

export interface Violation {
  readonly checker: string;
  readonly ruleIds: readonly string[];
  readonly class: FailureClass;
  readonly message: string;
  /** Trace event seqs that show it. */
  readonly events: readonly number[];
  /** ContentProvider call ids (World.contentCalls) that show it. */
  readonly calls: readonly number[];
}

export interface CheckContext {
  /** Provider packages under test (hostile providers are not judged by provider rules). */
  readonly providersUnderTest: readonly string[];
  /** Packages of the reference consumer (judged by consumer rules); raw test drivers are not. */
  readonly consumers: readonly string[];
  /** Declared effect of each tool, by `${providerPackage}|${toolName}` (from the apps' descriptors). */
  readonly toolEffects: ReadonlyMap<string, string>;
  /**
   * Declared confirmation policy of each tool (`always`, `provider_policy`, `never`), by
   * `${providerPackage}|${toolName}` (from the descriptors; list_tools answers on the wire count too).
   */
  readonly toolConfirmations?: ReadonlyMap<string, string>;
  /** Scopes of each tool, by `${providerPackage}|${toolName}`. */
  readonly toolScopes: ReadonlyMap<string, readonly string[]>;
  /** Input schema of each tool, by `${providerPackage}|${toolName}` (absent: args are not judged). */
  readonly toolInputSchemas?: ReadonlyMap<string, unknown>;
  /** Output schema of each tool, by `${providerPackage}|${toolName}` (absent: results are judged only against list_tools answers on the wire). */
  readonly toolOutputSchemas?: ReadonlyMap<string, unknown>;
  /** Args the app's business rules must refuse, as canonical JSON, by `${providerPackage}|${toolName}` (ProviderFixture.refusedArgs). */
  readonly toolRefusedArgs?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Args the app fails on internally by design, as canonical JSON with `$UID` unfilled, by `${providerPackage}|${toolName}` (ProviderFixture.internalFailures). */
  readonly toolInternalFailures?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Whether args need the user's approval by the app's runtime-risk policy (ProviderFixture.approvalRequired), by `${providerPackage}|${toolName}`. */
  readonly toolApprovalRequired?: ReadonlyMap<string, (args: JsonValue) => boolean>;
  /** Scopes the provider's policy grants only after the user agrees (AUTH_REQUIRED), by provider package. */
  readonly userGrantedScopes: ReadonlyMap<string, readonly string[]>;
  /** Packages that are hostile by design (their own leaks and crashes are not findings). */
  readonly hostile?: readonly string[];
  /**
   * The readings of ambiguous spec points the run was made with (absent: the reference's). An oracle
   * that judges a point the spec leaves open accepts every reading of it (src/protocol/readings.ts).
   */
  readonly readings?: Readings;
  /** Resume-token lifetime of each provider that states one (ProviderFixture.resumeTokenTtlMs), by package. */
  readonly resumeTokenTtlMs?: ReadonlyMap<string, number>;
  /** The scopes each tool truly needs (ProviderFixture.requiredScopes), by `${providerPackage}|${toolName}`. */
  readonly toolRequiredScopes?: ReadonlyMap<string, readonly string[]>;
  /** Tables of each provider that are its own bookkeeping, not business state (ProviderFixture.bookkeepingTables), by package. */
  readonly bookkeepingTables?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Wire fields an oracle judges (ids of src/protocol/fields.ts; `*` matches any run of characters):
 * declared by the oracle itself, so `cetp-sim rules --fields` and the completeness test
 * (src/check/fields.test.ts) cannot drift from what the oracles do.
 */
export interface FieldJudgement {
  readonly fields: readonly string[];
  /** `schema`: its Bundle type, JSON type, range and enum; `consistency`: against what the world knows. */
  readonly aspect: 'schema' | 'consistency';
  /** What it is judged against, in a few words. */
  readonly against: string;
}

export interface Checker {
  readonly id: string;
  readonly ruleIds: readonly string[];
  readonly description: string;
  /** The wire fields this oracle judges (none: it judges no single field, e.g. fd leaks or progress). */
  readonly fields?: readonly FieldJudgement[];
  check(obs: Observation, ctx: CheckContext): Violation[];
}

/** What shows a violation beside its message: trace event seqs, call ids, and its class. */
export interface Evidence {
  readonly events?: readonly number[];
  readonly calls?: readonly number[];
  readonly class?: FailureClass;
}

export function violation(checker: Checker, message: string, evidence: Evidence = {}): Violation {
  return {
    checker: checker.id,
    ruleIds: checker.ruleIds,
    class: evidence.class ?? 'correctness',
    message: message.length > 300 ? `${message.slice(0, 297)}...` : message,
    events: evidence.events ?? [],
    calls: evidence.calls ?? [],
  };
}

/**
 * Groups items by a tuple of keys, keeping first-seen order. Each key is looked up in its own map
 * level, so long strings the items already hold (args, ids) are hashed once, not once per lookup
 * inside a freshly joined key.
 */
export function groupByKeys<T>(items: readonly T[], keysOf: (item: T) => readonly unknown[]): T[][] {
  const root = new Map<unknown, unknown>();
  const groups: T[][] = [];
  for (const item of items) {
    const keys = keysOf(item);
    let level = root;
    for (let i = 0; i < keys.length - 1; i++) {
      let next = level.get(keys[i]) as Map<unknown, unknown> | undefined;
      if (!next) {
        next = new Map();
        level.set(keys[i], next);
      }
      level = next;
    }
    const last = keys[keys.length - 1];
    const group = level.get(last) as T[] | undefined;
    if (group) group.push(item);
    else {
      const fresh = [item];
      level.set(last, fresh);
      groups.push(fresh);
    }
  }
  return groups;
}
