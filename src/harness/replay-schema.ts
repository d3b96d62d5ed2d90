/**
 * The JSON Schemas (Draft 2020-12) of a replay file as `cetp-sim fuzz` writes it: the engine's
 * ReplayFile (src/fuzz/fuzz.ts) plus, when the campaign ran user modules, `modules`; its scenario
 * is a raw-driver or a consumer-driven one, by the property's kind. Every field a re-run reads is
 * constrained here, so a hand-edited or truncated file is refused with the path of
 * the first bad value instead of failing somewhere inside the simulation.
 *
 * A replay file is data from anywhere (attached to a bug report): every array, string and number has
 * an upper bound, far above what a shrunk run needs and low enough that no file can make a replay run
 * for long — and the file itself is at most MAX_REPLAY_FILE_BYTES.
 */
import { HOSTILE_BATCH_MAX } from '../fuzz/scenario/malformed.ts';
import { ACTORS, CROSS_CLOCKS, DUPLICATED_METHODS, MALFORMED_FLAWS } from '../fuzz/scenario/model.ts';
import { ANDROID_RELEASES } from '../sim/core/release.ts';

/** The bounds (a shrunk run uses a small fraction of each). */
export const MAX_REPLAY_FILE_BYTES = 4 * 1024 * 1024;
const MAX_COMMANDS = 64;
const MAX_THREADS = 16;
const MAX_FAULTS = 64;
const MAX_DECISIONS = 20_000;
const MAX_INDEX = 1_000;
const MAX_DUPLICATES = 16;
/** Ten years of virtual time, in ms. */
const MAX_MS = 10 * 365 * 24 * 3_600_000;
const MAX_SEED = 2 ** 31 - 1;
const MAX_TEXT = 4_096;
const MAX_LIST = 256;

const nat = { type: 'integer', minimum: 0, maximum: MAX_SEED } as const;
const index = { type: 'integer', minimum: 0, maximum: MAX_INDEX } as const;
const ms = { type: 'integer', minimum: 0, maximum: MAX_MS } as const;
const text = { type: 'string', minLength: 1, maxLength: MAX_TEXT } as const;
const anyText = { type: 'string', maxLength: MAX_TEXT } as const;
const strings = { type: 'array', maxItems: MAX_LIST, items: anyText } as const;
const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

/** Variant name → reading name (both short identifiers). */
const readingMap = {
  type: 'object',
  maxProperties: 64,
  propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9]{0,63}$' },
  additionalProperties: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,63}$' },
} as const;

/** A closed object: every listed property required unless named in `optional`. */
function object(properties: Record<string, object>, optional: readonly string[] = []): object {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}

/** A union discriminated by `kind`: one closed object per kind. */
function tagged(branches: Record<string, Record<string, object>>, optional: readonly string[] = []): object {
  return {
    type: 'object',
    discriminator: { propertyName: 'kind' },
    required: ['kind'],
    oneOf: Object.entries(branches).map(([kind, fields]) =>
      object({ kind: { const: kind }, ...fields }, optional),
    ),
  };
}

const ridRef = tagged({ fresh: {}, reuse: { index }, other: { index }, shared: { index }, last: {} });

const command = tagged(
  {
    negotiate: { caps: strings, versions: { type: 'array', items: index, minItems: 1, maxItems: 16 } },
    execute: {
      provider: text,
      tool: text,
      args: index,
      rid: ridRef,
      expiredDeadline: { type: 'boolean' },
      confirmedFlag: { type: 'boolean' },
      resolve: {
        enum: [
          'none',
          'honest',
          'skip-ui',
          'altered-args',
          'other-rid',
          'foreign',
          'late-before',
          'late-after',
        ],
      },
      duplicates: { type: 'integer', minimum: 0, maximum: MAX_DUPLICATES },
    },
    retry: { index, afterMs: ms, resolve: { type: 'boolean' } },
    poll: { other: { type: 'boolean' }, wrongRid: { type: 'boolean' } },
    cancel: { other: { type: 'boolean' }, afterMs: ms },
    'steal-session': {},
    'resume-foreign': {},
    'after-faults': {},
    collide: {},
    'v1-list': { provider: text },
    malformed: { provider: text, flaw: { enum: [...MALFORMED_FLAWS] } },
    'hostile-batch': {
      provider: text,
      tool: text,
      cases: { type: 'array', items: index, minItems: 1, maxItems: HOSTILE_BATCH_MAX },
    },
    wait: { ms },
    cross: { clock: { enum: [...CROSS_CLOCKS] }, side: { enum: ['before', 'after'] } },
    'resume-held': {},
    'duplicate-call': { method: { enum: [...DUPLICATED_METHODS] } },
  },
  ['versions', 'wrongRid', 'resolve'],
);

// Optional fields of the fault kinds that have them (caller/callee, process) are listed per kind.
const fault = {
  type: 'object',
  discriminator: { propertyName: 'kind' },
  required: ['kind'],
  oneOf: [
    object({ kind: { const: 'kill' }, process: text }),
    object({ kind: { const: 'loseReply' }, callee: text, caller: text }, ['callee', 'caller']),
    object({ kind: { const: 'failTransaction' }, caller: text, callee: text }, ['callee', 'caller']),
    object({ kind: { const: 'clockJump' }, ms: { type: 'integer', minimum: -MAX_MS, maximum: MAX_MS } }),
    object({ kind: { const: 'deepSleep' }, ms }),
    object({ kind: { const: 'userAway' }, ms }),
    object({ kind: { const: 'corruptFd' }, process: text }, ['process']),
    object({ kind: { const: 'truncateFd' }, process: text, keepBytes: nat }, ['process']),
    object({ kind: { const: 'resign' }, package: text, cert: text, rotate: { type: 'boolean' } }),
    object({ kind: { const: 'reinstall' }, package: text }),
    object({ kind: { const: 'uninstall' }, package: text }),
    object({ kind: { const: 'slowStart' }, process: text, ms: ms }),
    object({ kind: { const: 'reboot' }, bootMs: ms }, ['bootMs']),
    object({ kind: { const: 'powerLoss' } }),
    object({ kind: { const: 'freezeCached' } }),
    object({ kind: { const: 'memoryPressure' }, kills: { type: 'integer', minimum: 0, maximum: 64 } }, [
      'kills',
    ]),
    // No `custom` fault: its names are an upper layer's verbs registered at run time, and no property
    // generates one, so a replay file's fault kinds are this closed set (an unknown kind: exit 2 at load).
  ],
};

const user = {
  type: 'array',
  maxItems: MAX_COMMANDS,
  items: { enum: ['approve', 'deny', 'back', 'ignore'] },
};
/** `at`: the scheduler step a fault is due at (a run has at most the step budget's 60,000). */
const faults = {
  type: 'array',
  maxItems: MAX_FAULTS,
  items: object({ at: { type: 'integer', minimum: 0, maximum: 100_000 }, fault }),
};
const decisions = { type: 'array', maxItems: MAX_DECISIONS, items: index };
const commands = (items: object) => ({ type: 'array', maxItems: MAX_COMMANDS, items });
const tail = { enum: ['fifo', 'random', 'pct'] };

/** A raw-driver scenario (src/fuzz/scenario/model.ts `Scenario`). */
export const RAW_SCENARIO_SCHEMA = object({
  seed: nat,
  tail,
  actors: {
    type: 'object',
    propertyNames: { enum: [...ACTORS] },
    additionalProperties: commands(command),
  },
  user,
  faults,
  decisions,
});

const agentCommand = tagged(
  {
    execute: {
      provider: text,
      tool: text,
      args: index,
      cancelAfterMs: { anyOf: [ms, { type: 'null' }] },
      mainThread: { const: true }, // issue 35 item 5a; older files have no such field
    },
    list: {},
    wait: { ms },
  },
  ['mainThread'],
);

/** A consumer-driven scenario (src/fuzz/scenario/consumer.ts `ConsumerScenario`). */
export const CONSUMER_SCENARIO_SCHEMA = object(
  {
    seed: nat,
    tail,
    threads: { type: 'array', maxItems: MAX_THREADS, items: commands(agentCommand) },
    consumerRestartsAtMs: { type: 'array', maxItems: MAX_FAULTS, items: ms },
    hostile: { anyOf: [index, { type: 'null' }] },
    consumerCaps: index,
    user,
    faults,
    decisions,
    // Lose the reply of the consumer's Nth execute_tool call (older files have no such field).
    lostExecuteReply: { anyOf: [{ type: 'integer', minimum: 1, maximum: 3 }, { type: 'null' }] },
    // After it, the provider unreachable until the agent's executions of it end; an update of the
    // alerts app to a new catalogue (src/fuzz/scenario/consumer-reach.ts).
    unreachableAfterLostReply: { type: 'boolean' },
    catalogueUpdate: object({ afterListing: { type: 'integer', minimum: 1, maximum: 9 }, delayMs: ms }),
  },
  ['lostExecuteReply', 'unreachableAfterLostReply', 'catalogueUpdate'],
);

/** The file around the scenario, whose schema depends on the property's kind (checked second). */
export const REPLAY_FILE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'cetp-sim replay file',
  ...object(
    {
      format: { const: 'cetp-sim/replay@1' },
      property: text,
      rules: strings,
      fuzz: object({
        seed: nat,
        path: { type: 'string', maxLength: 65_536, pattern: '^[0-9:]*$' },
        runsToFailure: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        shrinks: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      }),
      variant: object(
        {
          providerBugs: strings,
          consumerBugs: strings,
          disabledRules: strings,
          // Readings of ambiguous spec points, per side: variant → reading (src/protocol/readings.ts).
          readings: object({ provider: readingMap, consumer: readingMap }, ['provider', 'consumer']),
          // The Android release profile (src/sim/core/release.ts); absent: DEFAULT_ANDROID.
          android: { enum: [...ANDROID_RELEASES] },
          // Whether the campaign generated device faults (its scenario's faults say which it met).
          deviceFaults: { type: 'boolean' },
        },
        ['readings', 'android', 'deviceFaults'],
      ),
      scenario: { type: 'object' },
      // Empty: the run never finished (the watchdog stopped it), so it has no trace hash.
      traceHash: { type: 'string', pattern: '^([0-9a-f]{64})?$' },
      violations: {
        type: 'array',
        maxItems: MAX_LIST,
        items: object({
          checker: anyText,
          ruleIds: strings,
          class: { enum: ['correctness', 'liveness', 'crash'] },
          message: anyText,
        }),
      },
      campaign: object({ checker: { const: 'tool-never-succeeds' }, tool: text }),
      // A floor the campaign missed, witnessed by this run (src/fuzz/floor-witness.ts).
      floor: object({
        label: text,
        floor: { type: 'number', minimum: 0, maximum: 1 },
        share: { type: 'number', minimum: 0, maximum: 1 },
        count: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        runs: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      }),
      modules: object({ provider: text, consumer: text }, ['provider', 'consumer']),
      code: object({ cetpSim: sha256, provider: sha256, consumer: sha256 }, ['provider', 'consumer']),
      // SHA-256 of each input field as recorded (replay-file.ts inputDigests); absent in older files.
      inputs: object(
        { property: sha256, fuzz: sha256, variant: sha256, scenario: sha256, campaign: sha256 },
        ['campaign'],
      ),
    },
    ['modules', 'campaign', 'floor', 'code', 'inputs'],
  ),
};
