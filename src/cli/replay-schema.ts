/**
 * The JSON Schemas (Draft 2020-12) of a replay file as `cetp-sim fuzz` writes it: the engine's
 * ReplayFile (properties/fuzz.ts) plus, when the campaign ran user modules, `modules`; its scenario
 * is a raw-driver or a consumer-driven one, by the property's kind. Every field a re-run reads is
 * constrained here, so a hand-edited or truncated file is refused with the path of
 * the first bad value instead of failing somewhere inside the simulation.
 */
import { ACTORS, MALFORMED_FLAWS } from '../../properties/scenario/model.ts';

const nat = { type: 'integer', minimum: 0 } as const;
const text = { type: 'string', minLength: 1 } as const;
const strings = { type: 'array', items: { type: 'string' } } as const;

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

const ridRef = tagged({ fresh: {}, reuse: { index: nat }, other: { index: nat } });

const command = tagged(
  {
    negotiate: { caps: strings, versions: { type: 'array', items: nat, minItems: 1 } },
    execute: {
      provider: text,
      tool: text,
      args: nat,
      rid: ridRef,
      expiredDeadline: { type: 'boolean' },
      confirmedFlag: { type: 'boolean' },
      resolve: { enum: ['none', 'honest', 'skip-ui', 'altered-args', 'other-rid', 'foreign'] },
      duplicates: nat,
    },
    retry: { index: nat, afterMs: nat },
    poll: { other: { type: 'boolean' }, wrongRid: { type: 'boolean' } },
    cancel: { other: { type: 'boolean' }, afterMs: nat },
    'steal-session': {},
    'resume-foreign': {},
    'v1-list': { provider: text },
    malformed: { provider: text, flaw: { enum: [...MALFORMED_FLAWS] } },
    wait: { ms: nat },
  },
  ['versions', 'wrongRid'],
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
    object({ kind: { const: 'clockJump' }, ms: { type: 'integer' } }),
    object({ kind: { const: 'corruptFd' }, process: text }, ['process']),
    object({ kind: { const: 'truncateFd' }, process: text, keepBytes: nat }, ['process']),
    object({ kind: { const: 'resign' }, package: text, cert: text, rotate: { type: 'boolean' } }),
    object({ kind: { const: 'reinstall' }, package: text }),
    object({ kind: { const: 'uninstall' }, package: text }),
    object({ kind: { const: 'slowStart' }, process: text, ms: nat }),
    object({ kind: { const: 'reboot' } }),
    object({ kind: { const: 'powerLoss' } }),
    object({ kind: { const: 'freezeCached' } }),
    object({ kind: { const: 'memoryPressure' }, kills: nat }, ['kills']),
    object({ kind: { const: 'custom' }, name: text, args: { type: 'object' } }, ['args']),
  ],
};

const user = { type: 'array', items: { enum: ['approve', 'deny', 'back', 'ignore'] } };
const faults = { type: 'array', items: object({ at: nat, fault }) };
const decisions = { type: 'array', items: nat };
const tail = { enum: ['fifo', 'random', 'pct'] };

/** A raw-driver scenario (properties/scenario/model.ts `Scenario`). */
export const RAW_SCENARIO_SCHEMA = object({
  seed: nat,
  tail,
  actors: {
    type: 'object',
    propertyNames: { enum: [...ACTORS] },
    additionalProperties: { type: 'array', items: command },
  },
  user,
  faults,
  decisions,
});

const agentCommand = tagged({
  execute: { provider: text, tool: text, args: nat, cancelAfterMs: { anyOf: [nat, { type: 'null' }] } },
  list: {},
  wait: { ms: nat },
});

/** A consumer-driven scenario (properties/scenario/consumer.ts `ConsumerScenario`). */
export const CONSUMER_SCENARIO_SCHEMA = object({
  seed: nat,
  tail,
  threads: { type: 'array', items: { type: 'array', items: agentCommand } },
  consumerRestartsAtMs: { type: 'array', items: nat },
  hostile: { anyOf: [nat, { type: 'null' }] },
  consumerCaps: nat,
  user,
  faults,
  decisions,
});

/** The file around the scenario, whose schema depends on the property's kind (checked second). */
export const REPLAY_FILE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'cetp-sim replay file',
  ...object(
    {
      format: { const: 'cetp-sim/replay@1' },
      property: text,
      rules: strings,
      fuzz: object({ seed: nat, path: { type: 'string' }, runsToFailure: nat, shrinks: nat }),
      variant: object({ providerBugs: strings, consumerBugs: strings, disabledRules: strings }),
      scenario: { type: 'object' },
      traceHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      violations: {
        type: 'array',
        items: object({
          checker: { type: 'string' },
          ruleIds: strings,
          class: { enum: ['correctness', 'liveness', 'crash'] },
          message: { type: 'string' },
        }),
      },
      modules: object({ provider: text, consumer: text }, ['provider', 'consumer']),
    },
    ['modules'],
  ),
};
