/**
 * The shared test-vector format: language-neutral data a device test (Kotlin, Java) or this
 * simulation replays against a CETP v2 provider. The JSON Schemas in schemas.ts are the single
 * source of truth; these types mirror them (schemas.test.ts checks every corpus file against the
 * schemas, so a type that drifts from its schema fails there).
 *
 * Ideas taken from Wycheproof (stable ids, `result: valid|invalid|acceptable`, flags with bug
 * types), httpwg structured-field tests (values tagged with their exact type) and Ethereum's
 * execution-spec-tests (vectors "filled" by a reference implementation, hashed in a manifest).
 */

/** The version of this format; a file with another major version must be refused by a runner. */
export const FORMAT_VERSION = '1.0';
export const FORMAT_ID = 'cetp-vectors/1';

/** What a runner (or device) must be able to do for a vector to run; missing ⇒ skip with the reason. */
export const ABILITIES = [
  'core',
  'async_operations',
  'cancellation',
  'large_results',
  'user-action',
  'process-kill',
  'clock-control',
  'second-uid',
  'resign',
] as const;
export type Ability = (typeof ABILITIES)[number];

/**
 * Which process a `kill` step kills: `main`, the provider app's main process (the default, what a
 * kill always meant), or `provider`, the process its provider runs in — another one for an app whose
 * provider declares `android:process` (the same one otherwise).
 */
export const KILL_TARGETS = ['main', 'provider'] as const;
export type KillTarget = (typeof KILL_TARGETS)[number];

/** Conformance profiles (spec §9): core plus one per optional capability. */
export const PROFILES = ['core', 'async', 'cancellation', 'large-results'] as const;
export type Profile = (typeof PROFILES)[number];

export const LEVELS = ['MUST', 'MUST NOT', 'SHOULD', 'MAY'] as const;
export type Level = (typeof LEVELS)[number];
export const RESULTS = ['valid', 'invalid', 'acceptable'] as const;
export type VectorResult = (typeof RESULTS)[number];

/** A Bundle value with its exact Java type (what `Bundle.putX` a runner calls). */
export type TypedValue =
  | { readonly type: 'int'; readonly value: number }
  | { readonly type: 'long'; readonly value: string }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'double' | 'float'; readonly value: number | 'NaN' | 'Infinity' | '-Infinity' }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'bytes'; readonly value: string }
  | { readonly type: 'string[]'; readonly value: readonly string[] }
  | { readonly type: 'int[]'; readonly value: readonly number[] }
  | { readonly type: 'long[]'; readonly value: readonly string[] }
  | { readonly type: 'bundle'; readonly value: Readonly<Record<string, SendValue>> }
  | { readonly type: 'null' }
  | { readonly type: 'fd'; readonly sha256: string; readonly size: number };
export type TypeName = TypedValue['type'];

/** A part of a composed string: literal text or the value of a variable. */
export type StringPart = string | { readonly ref: string };

/**
 * A value a runner sends: a typed literal, a variable (a fresh UUID or a captured value), a string
 * composed of parts (e.g. an account id containing the caller's UID), or a wall-clock time
 * relative to now (a deadline).
 */
export type SendValue =
  | TypedValue
  | { readonly type: 'string'; readonly ref: string }
  | { readonly type: 'string'; readonly parts: readonly StringPart[] }
  | { readonly type: 'long'; readonly now_plus_ms: number };

/** What a scripted reply's PendingIntent targets: that app's confirmation Activity, or an action only. */
export type PiTarget = 'provider' | 'other' | 'implicit';

/**
 * A PendingIntent a consumer vector's scripted provider puts in a reply (a resolution): created by
 * the provider itself or by the helper app (`other`) and relayed, its Intent explicit to the
 * provider's or the helper's confirmation Activity or `implicit` (the action
 * `org.cetp.vectors.action.CONFIRM`, which only the helper declares), FLAG_IMMUTABLE or FLAG_MUTABLE.
 */
export interface PendingIntentValue {
  readonly type: 'pending_intent';
  readonly creator: 'provider' | 'other';
  readonly target: PiTarget;
  readonly immutable: boolean;
}

/** A value in a scripted reply: anything a runner sends, or a PendingIntent. */
export type ReplyValue = SendValue | PendingIntentValue;

export const MATCHERS = [
  'any',
  'absent',
  'type',
  'regex',
  'uuid',
  'range',
  'oneOf',
  'sha256',
  'jsonSchema',
  'capture',
  'ref',
  'anyOf',
] as const;
export type MatcherName = (typeof MATCHERS)[number];

/** The closed set of matchers; each is about ten lines of Kotlin. */
export type Matcher =
  | { readonly $match: 'any' }
  | { readonly $match: 'absent' }
  | { readonly $match: 'type'; readonly type: string }
  | { readonly $match: 'regex'; readonly pattern: string }
  | { readonly $match: 'uuid' }
  | { readonly $match: 'range'; readonly min?: number; readonly max?: number }
  | { readonly $match: 'oneOf'; readonly values: readonly unknown[] }
  | { readonly $match: 'sha256' }
  | { readonly $match: 'jsonSchema'; readonly schema: unknown }
  | { readonly $match: 'capture'; readonly as: string }
  | { readonly $match: 'ref'; readonly name: string }
  | { readonly $match: 'anyOf'; readonly of: readonly unknown[] };

/**
 * An expectation on a Bundle value: a typed literal (a bundle's keys are a subset: providers may
 * add keys), a string whose content is JSON matching a JSON expectation, a PendingIntent or file
 * descriptor with the properties it must have, or a matcher.
 */
export type Expect =
  | Matcher
  | Exclude<TypedValue, { type: 'bundle' }>
  | { readonly type: 'bundle'; readonly value: Readonly<Record<string, Expect>> }
  | { readonly type: 'string'; readonly json: JsonExpect }
  | { readonly type: 'pending_intent'; readonly creator: 'provider' | 'other'; readonly immutable: boolean }
  | { readonly type: 'fd'; readonly read_only: boolean };

/** A JSON expectation: literals (objects as subsets, arrays element by element) or matchers. */
export type JsonExpect = unknown;

/** What a read file must be: its size and SHA-256, each literal or compared with a captured value. */
export interface FdExpect {
  readonly size: number | Matcher;
  readonly sha256: string | Matcher;
}

export type Caller = 'primary' | 'second';

export interface CallSpec {
  readonly caller?: Caller;
  readonly method: string;
  readonly arg: string | null;
  readonly extras: Readonly<Record<string, SendValue>> | null;
}

export type UserAnswer = 'approve' | 'deny' | 'back' | 'never';

export type Step =
  | ({ readonly op: 'call'; readonly expect: Expect } & CallSpec)
  | {
      readonly op: 'repeat';
      readonly step: number;
      readonly set?: Readonly<Record<string, SendValue>>;
      readonly caller?: Caller;
      readonly expect: Expect;
    }
  | {
      readonly op: 'parallel';
      readonly count: number;
      readonly call: CallSpec;
      readonly expect: readonly { readonly count: number; readonly reply: Expect }[];
    }
  | { readonly op: 'user'; readonly answer: UserAnswer }
  | { readonly op: 'kill'; readonly process?: KillTarget }
  | { readonly op: 'advance-clock'; readonly ms: number }
  | {
      readonly op: 'read-fd';
      readonly key: string;
      readonly expect: FdExpect;
    }
  | {
      readonly op: 'poll-until';
      readonly call: CallSpec;
      readonly until: Expect;
      readonly max_polls: number;
      readonly expect: Expect;
    };
export type StepOp = Step['op'];

/** What every vector says about itself, provider- or consumer-side, source or generated. */
export interface VectorHeader {
  readonly id: string;
  readonly title: string;
  readonly since: string;
  readonly deprecated?: { readonly since: string; readonly reason: string };
  readonly level: Level;
  readonly result: VectorResult;
  readonly rules: readonly string[];
  readonly flags: readonly string[];
  readonly requires: readonly Ability[];
}

export interface Vector extends VectorHeader {
  /** The provider fixture the vector drives (see the manifest's `fixtures`). */
  readonly provider: string;
  /** Variables bound to a fresh random UUID when the vector starts (request ids). */
  readonly fresh: readonly string[];
  readonly steps: readonly Step[];
}

export interface VectorFile {
  readonly format: typeof FORMAT_ID;
  readonly area: string;
  readonly description: string;
  readonly vectors: readonly Vector[];
}

export interface FlagInfo {
  readonly bug_type: string;
  readonly description: string;
}

export interface FixtureInfo {
  readonly package: string;
  readonly authority: string;
  readonly description: string;
}

export interface ManifestFile {
  readonly path: string;
  readonly sha256: string;
  readonly vectors: number;
}

export interface Manifest {
  readonly format: typeof FORMAT_ID;
  readonly format_version: string;
  readonly spec: string;
  readonly generator: { readonly name: string; readonly version: string; readonly sources_sha256: string };
  readonly variables: Readonly<Record<string, string>>;
  readonly fixtures: Readonly<Record<string, FixtureInfo>>;
  readonly flags: Readonly<Record<string, FlagInfo>>;
  readonly files: readonly ManifestFile[];
  readonly schemas: readonly ManifestFile[];
  readonly blobs: readonly { readonly sha256: string; readonly size: number }[];
}

/** The profile a vector belongs to: the optional capability it needs, else core. */
export function profileOf(vector: Pick<Vector, 'requires'>): Profile {
  if (vector.requires.includes('large_results')) return 'large-results';
  if (vector.requires.includes('cancellation')) return 'cancellation';
  if (vector.requires.includes('async_operations')) return 'async';
  return 'core';
}

/** Built-in variables every runner binds before the steps (documented in the manifest). */
export const BUILTIN_VARIABLES: Readonly<Record<string, string>> = {
  caller_uid: "the primary caller app's Linux UID, in decimal",
};
