/**
 * Replay files on disk: written by `cetp-sim fuzz` for every failure, read back by `cetp-sim replay`.
 * Reading validates in the order a human would fix things — readable, JSON, the right format, the
 * schema's shape, then names that must exist (property, planted bugs, rule ids, providers and tools)
 * — and reports the first problem as a CliError naming the file and the place.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import canonicalize from 'canonicalize';
import { caches } from '../base/caches.ts';
import { isConsumerBug } from '../consumer/index.ts';
import { REPLAY_FORMAT, type ReplayFile } from '../fuzz/fuzz.ts';
import { MUTANTS } from '../fuzz/mutants.ts';
import { replayablePropertyById, replayablePropertyIds } from '../fuzz/registry.ts';
import type { ConsumerScenario } from '../fuzz/scenario/consumer.ts';
import type { Command, Scenario } from '../fuzz/scenario/model.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import { sha256Hex } from '../protocol/digest.ts';
import { isRuleId } from '../protocol/index.ts';
import { readingsProblem } from '../protocol/readings.ts';
import { type ErrorObject, SharedMetaAjv, type ValidateFunction } from '../protocol/schemas/ajv.ts';
import type { TraceEvent } from '../sim/core/trace.ts';
import { renderMermaid } from '../sim/core/trace-render.ts';
import { type CodeIdentity, codeIdentity, type ReplayModules } from './code-identity.ts';
import type { CliErrorCode } from './error-codes.ts';
import { CliError } from './errors.ts';
import {
  CONSUMER_SCENARIO_SCHEMA,
  MAX_REPLAY_FILE_BYTES,
  RAW_SCENARIO_SCHEMA,
  REPLAY_FILE_SCHEMA,
} from './replay-schema.ts';

/** The fields of a replay file that determine its run (and how it was found): each is digested. */
export const INPUT_FIELDS = ['property', 'fuzz', 'variant', 'scenario', 'campaign'] as const;
export type InputField = (typeof INPUT_FIELDS)[number];

/**
 * A replay file as the CLI writes it. `modules` names the user modules the campaign ran with — a
 * hint for the person replaying, never loaded from the file (`replay` loads only what its own command
 * line names). `code` hashes the code the run was recorded with (code-identity.ts); `inputs` the
 * file's own inputs as recorded (SHA-256 of each field's canonical JSON), so that a file edited since
 * — a planted bug removed, a fault dropped — is told apart from a determinism break.
 */
export interface CliReplayFile extends ReplayFile {
  readonly modules?: ReplayModules;
  readonly code?: CodeIdentity;
  readonly inputs?: Readonly<Partial<Record<InputField, string>>>;
}

/** SHA-256 of the canonical JSON of each input field the file has. */
export function inputDigests(replay: ReplayFile): Partial<Record<InputField, string>> {
  const digests: Partial<Record<InputField, string>> = {};
  for (const field of INPUT_FIELDS) {
    const value = (replay as unknown as Record<string, unknown>)[field];
    if (value !== undefined)
      digests[field] = sha256Hex(canonicalize(JSON.parse(JSON.stringify(value))) ?? '');
  }
  return digests;
}

/** The input fields changed since the file was recorded; null when it records no digests (an old file). */
export function editedFields(file: CliReplayFile): InputField[] | null {
  if (file.inputs === undefined) return null;
  const recorded = file.inputs;
  const now = inputDigests(file);
  return INPUT_FIELDS.filter((field) => recorded[field] !== now[field]);
}

/** `<out>/<property>-<seed>.replay.json`. */
export function replayFilePath(outDir: string, propertyId: string, seed: number): string {
  return join(outDir, `${propertyId}-${seed}.replay.json`);
}

/** The Mermaid sequence diagram written next to a replay file. */
export function diagramFilePath(replayFile: string): string {
  return replayFile.replace(/\.replay\.json$/, '.mmd');
}

/** Writes the shrunk run's trace as a Mermaid sequence diagram (PackageManager noise left out). */
export function writeDiagramFile(path: string, events: readonly TraceEvent[]): void {
  try {
    writeFileSync(path, `${renderMermaid(events, { omit: ['pm'] })}\n`);
  } catch (error) {
    throw new CliError('replay_write_failed', `cannot write ${path}: ${(error as Error).message}`);
  }
}

/**
 * The modules a replay file was recorded with that the caller does not hand over (`given`): a replay
 * file never loads code by itself, so every entry point (replay(), `cetp-sim replay`) refuses these,
 * each naming how to pass them in its own terms.
 */
export function missingModules(
  file: CliReplayFile,
  given: Readonly<Record<keyof ReplayModules, boolean>>,
): { readonly kind: keyof ReplayModules; readonly recorded: string }[] {
  return (['provider', 'consumer'] as const).flatMap((kind) => {
    const recorded = file.modules?.[kind];
    return recorded !== undefined && !given[kind] ? [{ kind, recorded }] : [];
  });
}

export function writeReplayFile(path: string, replay: ReplayFile, modules: ReplayModules, cwd: string): void {
  const named = modules.provider !== undefined || modules.consumer !== undefined;
  const file: CliReplayFile = {
    ...replay,
    ...(named ? { modules } : {}),
    code: codeIdentity(modules, cwd),
    inputs: inputDigests(replay),
  };
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  } catch (error) {
    throw new CliError('replay_write_failed', `cannot write ${path}: ${(error as Error).message}`);
  }
}

function invalid(path: string, code: CliErrorCode, message: string): CliError {
  return new CliError(code, `${path}: ${message}`);
}

function describeAjvError(e: ErrorObject): string {
  const at = e.instancePath === '' ? '(root)' : e.instancePath;
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties')
    return `${at}: unexpected property '${params.additionalProperty}'`;
  if (e.keyword === 'enum') return `${at}: must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'discriminator' && params.error === 'mapping')
    return `${at}: unknown kind '${params.tagValue}'`;
  return `${at}: ${e.message ?? e.keyword}`;
}

/** The replay file's schemas, each compiled once (a `replay` of several files, tests reading many). */
const VALIDATORS = caches.weakMap<object, ValidateFunction>('harness/replay-file: validators by schema');

function validatorOf(schema: object): ValidateFunction {
  let validate = VALIDATORS.get(schema);
  if (validate === undefined) {
    const ajv = new SharedMetaAjv({
      allErrors: false,
      strict: true,
      strictRequired: false,
      discriminator: true,
    });
    validate = ajv.compile(schema);
    VALIDATORS.set(schema, validate);
  }
  return validate;
}

function check(path: string, schema: object, raw: unknown, prefix = ''): void {
  const validate = validatorOf(schema);
  if (validate(raw)) return;
  const first = validate.errors?.[0];
  const where = first
    ? describeAjvError({ ...first, instancePath: prefix + first.instancePath })
    : 'bad shape';
  throw invalid(path, 'replay_invalid', where);
}

function validateNames(path: string, file: CliReplayFile): void {
  if (!replayablePropertyById(file.property))
    throw invalid(
      path,
      'replay_unknown_property',
      `unknown property '${file.property}'; valid: ${replayablePropertyIds().join(', ')}`,
    );
  const providerBugs = new Set(MUTANTS.flatMap((m) => m.variant.providerBugs));
  const { variant } = file;
  // The first name no catalogue knows, provider bugs first, then consumer bugs, then rules.
  const unknown: [CliErrorCode, string][] = [
    ...variant.providerBugs
      .filter((bug) => !providerBugs.has(bug))
      .map((bug): [CliErrorCode, string] => [
        'replay_unknown_bug',
        `planted provider bug '${bug}' in /variant/providerBugs`,
      ]),
    ...variant.consumerBugs
      .filter((bug) => !isConsumerBug(bug))
      .map((bug): [CliErrorCode, string] => [
        'replay_unknown_bug',
        `planted consumer bug '${bug}' in /variant/consumerBugs`,
      ]),
    ...variant.disabledRules
      .filter((rule) => !isRuleId(rule))
      .map((rule): [CliErrorCode, string] => [
        'replay_unknown_rule',
        `rule id '${rule}' in /variant/disabledRules`,
      ]),
  ];
  const [first] = unknown;
  if (first) throw invalid(path, first[0], `unknown ${first[1]}`);
  for (const side of ['provider', 'consumer'] as const) {
    const problem = readingsProblem(side, file.variant.readings?.[side]);
    if (problem) throw invalid(path, 'replay_unknown_reading', `${problem} in /variant/readings/${side}`);
  }
}

/** Reads and validates a replay file; every problem is a CliError (exit 2) naming what is wrong. */
export function readReplayFile(path: string): CliReplayFile {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_REPLAY_FILE_BYTES)
      throw invalid(
        path,
        'replay_too_large',
        `${size} bytes; a replay file is at most ${MAX_REPLAY_FILE_BYTES} bytes (a shrunk run is a few KiB)`,
      );
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError('replay_file_not_found', `no such file: ${path}`);
    throw new CliError('replay_file_unreadable', `cannot read ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalid(path, 'replay_invalid_json', `not valid JSON (${(error as Error).message})`);
  }
  const format = typeof raw === 'object' && raw !== null ? (raw as { format?: unknown }).format : undefined;
  if (format !== REPLAY_FORMAT)
    throw invalid(
      path,
      'replay_unknown_format',
      `expected "format": "${REPLAY_FORMAT}", found ${format === undefined ? 'none' : JSON.stringify(format)}`,
    );
  check(path, REPLAY_FILE_SCHEMA, raw);
  const file = raw as CliReplayFile;
  validateNames(path, file);
  const kind = (replayablePropertyById(file.property) as PropertyDef).kind;
  check(
    path,
    kind === 'consumer' ? CONSUMER_SCENARIO_SCHEMA : RAW_SCENARIO_SCHEMA,
    file.scenario,
    '/scenario',
  );
  return file;
}

/** Provider names a scenario calls, with where: raw commands and consumer agent commands alike. */
function providerCalls(
  file: CliReplayFile,
  kind: PropertyDef['kind'],
): { where: string; provider: string; tool?: string }[] {
  const calls: { where: string; provider: string; tool?: string }[] = [];
  if (kind === 'consumer') {
    const scenario = file.scenario as ConsumerScenario;
    scenario.threads.forEach((commands, t) => {
      commands.forEach((c, i) => {
        if (c.kind === 'execute')
          calls.push({ where: `/scenario/threads/${t}/${i}`, provider: c.provider, tool: c.tool });
      });
    });
    return calls;
  }
  for (const [actor, commands] of Object.entries((file.scenario as Scenario).actors)) {
    (commands as readonly Command[]).forEach((c, i) => {
      const where = `/scenario/actors/${actor}/${i}`;
      if (c.kind === 'execute') calls.push({ where, provider: c.provider, tool: c.tool });
      else if (c.kind === 'v1-list' || c.kind === 'malformed') calls.push({ where, provider: c.provider });
    });
  }
  return calls;
}

/**
 * Checks that the scenario only names providers and tools the property (as it will be run: with the
 * reference apps or the user's module) installs; the driver would otherwise misroute or crash.
 * A consumer-driven property's hostile provider is `hostile`, whatever its case.
 */
export function checkScenarioFits(path: string, file: CliReplayFile, def: PropertyDef): void {
  const providers = new Map(def.fixture.providers.map((p) => [p.name, p]));
  const available = [...providers.keys()].join(', ');
  for (const { where, provider, tool } of providerCalls(file, def.kind)) {
    if (def.kind === 'consumer' && provider === 'hostile') continue;
    const fixture = providers.get(provider);
    if (!fixture)
      throw invalid(
        path,
        'replay_mismatch',
        `${where} names provider '${provider}', which property '${def.id}' does not install here (it has: ${available})`,
      );
    if (tool !== undefined && !Object.hasOwn(fixture.tools, tool))
      throw invalid(
        path,
        'replay_mismatch',
        `${where} calls ${provider}.${tool}, a tool the fixture does not know (it has: ${Object.keys(fixture.tools).join(', ')})`,
      );
  }
}
