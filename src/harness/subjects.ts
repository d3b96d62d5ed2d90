/**
 * The implementations under test, as the fuzz engine takes them: a user's provider fixtures or
 * consumer, checked before any run (shape, and that install() installs what it names into a fresh
 * world beside the fuzzer's client apps), and the catalogue's properties re-aimed at them
 * (`withProviders`, `withConsumer`: copies; the catalogue is untouched). The CLI (`--provider`,
 * `--consumer`) and the library harness (`fuzzProvider`, `fuzzConsumer`) both go through here.
 */

import type { JsonValue } from '../base/json.ts';
import type { Checker } from '../check/checker.ts';
import { ALL_CHECKERS } from '../check/checkers/index.ts';
import { FixtureError, resolveProviderFixture, variantIgnored } from '../check/fixture.ts';
import { userOracles } from '../check/user-oracles.ts';
import { CONSUMER_PACKAGE } from '../consumer/app.ts';
import { ACTOR_PACKAGES, ALERTS, installActors, PAYMENTS } from '../fuzz/scenario/fixtures.ts';
import { ACTORS, REFERENCE } from '../fuzz/scenario/model.ts';
import { ownPlaceholderIssues } from '../fuzz/scenario/placeholders.ts';
import { declaredReach, withAppFloors } from '../fuzz/suite-kit.ts';
import { PROPERTIES, type PropertyDef } from '../fuzz/suites.ts';
import { EFFECTS } from '../protocol/index.ts';
import type { Fault } from '../sim/core/faults.ts';
import { World } from '../sim/world.ts';
import type {
  CancellationLike,
  ConsumerUnderTest,
  ProviderFixture,
  ResolvedProviderFixture,
  Variant,
} from '../subjects/subjects.ts';
import { consumerVariantIgnored } from './consumer-planted.ts';
import { CliError } from './errors.ts';
import { globalsChecker, MODULE_GLOBALS_CHECKER, snapshotGlobals } from './globals.ts';
import { checkInvariantIdsUnique, checkUserOracles } from './user-oracle-checks.ts';

/** Provider fixtures to fuzz, and (optionally) which of their tools each property calls. */
export interface ProvidersUnderTest {
  /** With what each provider's list_tools declares filled in (src/check/fixture.ts). */
  readonly providers: readonly ResolvedProviderFixture[];
  /** By property id, the tools it calls, as 'name.tool' (no entry: all of them; resolved from 'default'). */
  readonly propertyTools: Readonly<Record<string, readonly string[]>>;
}

/** Thrown (through the simulation) when a user's install() fails during a run. */
export class UserModuleError extends Error {
  override readonly name = 'UserModuleError';
}

const NAME = /^[a-z][a-z0-9_]*$/;

function isJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value as object).every((v) => isJson(v, depth + 1));
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function checkByTool(
  value: unknown,
  at: string,
  tools: Record<string, unknown>,
  valid: (v: unknown) => boolean,
  what: string,
  fail: (message: string) => never,
): void {
  if (value === undefined) return;
  if (!isRecord(value))
    fail(`${at} must map tool names to ${what} (or be left out: it is read from list_tools)`);
  for (const [tool, v] of Object.entries(value as Record<string, unknown>)) {
    if (!(tool in tools)) fail(`${at}: '${tool}' is not in tools (nor in effects)`);
    if (!valid(v)) fail(`${at}.${tool} must be ${what}`);
  }
}

function checkFixture(raw: unknown, at: string, fail: (message: string) => never): ProviderFixture {
  if (!isRecord(raw)) return fail(`${at} must be an object (a ProviderFixture)`);
  const pools = checkFixtureFields(raw, at, fail);
  // A tool with an effect but no args pool is one the campaign knows of but never calls itself (e.g.
  // a tool hidden from most callers, called by a consumer that was shown it): the other maps may
  // describe it too. A name in no pool and no effect is a slip.
  const known = { ...(isRecord(raw.effects) ? raw.effects : {}), ...pools };
  checkToolMaps(raw, at, known, pools, fail);
  return raw as unknown as ProviderFixture;
}

/** Checks a fixture's own fields (name, package, authority, install, tools, scopes); its args pools. */
function checkFixtureFields(
  raw: Record<string, unknown>,
  at: string,
  fail: (message: string) => never,
): Record<string, unknown> {
  const { name, packageName, authority, install, tools, userGrantedScopes } = raw;
  if (typeof name !== 'string' || !NAME.test(name)) fail(`${at}.name must match ${NAME.source}`);
  if (typeof packageName !== 'string' || packageName === '') fail(`${at}.packageName must be a package name`);
  if (typeof authority !== 'string' || authority === '') fail(`${at}.authority must be an authority`);
  if (typeof install !== 'function') fail(`${at}.install must be a function (world, variant) => void`);
  if (!isRecord(tools) || Object.keys(tools).length === 0)
    fail(`${at}.tools must map at least one tool name to its args pool`);
  const pools = tools as Record<string, unknown>;
  for (const [tool, pool] of Object.entries(pools)) {
    if (tool.includes('.')) fail(`${at}.tools: tool name '${tool}' must not contain '.'`);
    if (!Array.isArray(pool) || pool.length === 0 || !pool.every((v) => isJson(v)))
      fail(`${at}.tools.${tool} must be a non-empty array of JSON values`);
  }
  const own = ownPlaceholderIssues(pools as Record<string, JsonValue[]>);
  if (own.length > 0) fail(own.map((issue) => `${at}.${issue.path}: ${issue.message}`).join('; '));
  if (!isStrings(userGrantedScopes))
    fail(`${at}.userGrantedScopes must be an array of strings (scopes granted only after the user agrees)`);
  if (raw.processes !== undefined && !isStrings(raw.processes))
    fail(`${at}.processes must be an array of process names (the app's android:process names)`);
  if (raw.bookkeepingTables !== undefined && !isStrings(raw.bookkeepingTables))
    fail(
      `${at}.bookkeepingTables must be an array of table names (the app's own bookkeeping, not business state)`,
    );
  return pools;
}

const isSchema = (v: unknown) => typeof v === 'boolean' || isRecord(v);
const isArgsList = (v: unknown) => Array.isArray(v) && v.every((a) => isJson(a));

/** A per-tool map of a fixture: its field, the tools it may name, the check of a value, what one must be. */
type ToolMapCheck = readonly [
  field: string,
  over: 'known' | 'pools',
  ok: (v: unknown) => boolean,
  expected: string,
];

/** The per-tool maps, in the order they are checked (the user oracles are checked before outputSchemas). */
const TOOL_MAPS: readonly ToolMapCheck[] = [
  ['effects', 'known', (v) => (EFFECTS as readonly unknown[]).includes(v), `one of ${EFFECTS.join(', ')}`],
  ['scopes', 'known', isStrings, "the tool's scopes, an array of strings"],
  ['requiredScopes', 'known', isStrings, 'the scopes the tool truly needs'],
  ['confirmations', 'known', (v) => typeof v === 'string', 'a confirmation policy'],
  ['inputSchemas', 'known', isSchema, 'a JSON Schema (an object or a boolean)'],
  ['refusedArgs', 'pools', isArgsList, 'an array of args (JSON values) the app must refuse'],
  [
    'internalFailures',
    'pools',
    isArgsList,
    'an array of args (JSON values) the app fails on internally by design',
  ],
  [
    'approvalRequired',
    'known',
    (v) => typeof v === 'function',
    "a function of the args: whether the app's runtime-risk policy must ask the user",
  ],
];

/** Checks the per-tool maps of a fixture: each names known tools (`pools`: tools it calls) only. */
function checkToolMaps(
  raw: Record<string, unknown>,
  at: string,
  known: Record<string, unknown>,
  pools: Record<string, unknown>,
  fail: (message: string) => never,
): void {
  for (const [field, over, ok, expected] of TOOL_MAPS)
    checkByTool(raw[field], `${at}.${field}`, over === 'known' ? known : pools, ok, expected, fail);
  checkUserOracles(raw, at, new Set(Object.keys(known)), fail);
  checkByTool(
    raw.outputSchemas,
    `${at}.outputSchemas`,
    known,
    isSchema,
    'a JSON Schema (an object or a boolean)',
    fail,
  );
}

/** Each fixture with what its provider's list_tools declares filled in (src/check/fixture.ts). */
async function resolveAll(
  providers: readonly ProviderFixture[],
  fail: (message: string) => never,
): Promise<ResolvedProviderFixture[]> {
  const resolved: ResolvedProviderFixture[] = [];
  for (const [i, p] of providers.entries()) {
    try {
      resolved.push(await resolveProviderFixture(p));
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      fail(error.issues.map((issue) => `providers[${i}].${issue.path}: ${issue.message}`).join('; '));
    }
  }
  return resolved;
}

/** The key of a `propertyTools` map that gives the tools of every property it does not name. */
export const PROPERTY_TOOLS_DEFAULT = 'default';

/**
 * A `propertyTools` map, resolved: by property id, the tools it calls ('all', or no entry after
 * resolution: every tool). A map must say what each property calls — naming it, or through a
 * `default` entry — so a property added to cetp-sim later never silently calls every tool of a map
 * written before it: a map that misses properties without a `default` is refused, naming them.
 */
function checkPropertyTools(
  raw: unknown,
  providers: readonly ProviderFixture[],
  fail: (message: string) => never,
): Record<string, readonly string[]> {
  if (raw === undefined) return {};
  if (!isRecord(raw)) return fail('propertyTools must map property ids to lists of tools');
  const known = new Set(providers.flatMap((p) => Object.keys(p.tools).map((t) => `${p.name}.${t}`)));
  const ids = PROPERTIES.map((p) => p.id);
  for (const [id, tools] of Object.entries(raw)) {
    if (id !== PROPERTY_TOOLS_DEFAULT && !ids.includes(id))
      fail(
        `propertyTools: unknown property '${id}'; valid: ${ids.join(', ')} (or '${PROPERTY_TOOLS_DEFAULT}')`,
      );
    if (tools === 'all') continue;
    if (!Array.isArray(tools) || tools.length === 0)
      fail(`propertyTools.${id} must be a non-empty array of 'name.tool', or 'all'`);
    for (const tool of tools as unknown[])
      if (typeof tool !== 'string' || !known.has(tool))
        fail(`propertyTools.${id}: unknown tool ${JSON.stringify(tool)}; known: ${[...known].join(', ')}`);
  }
  const fallback = raw[PROPERTY_TOOLS_DEFAULT];
  const missing = ids.filter((id) => !(id in raw));
  if (fallback === undefined && missing.length > 0)
    fail(
      `propertyTools names no tools for ${missing.join(', ')}: name them, or add a '${PROPERTY_TOOLS_DEFAULT}' entry (a list of 'name.tool', or 'all') for every property not named`,
    );
  const resolved: Record<string, readonly string[]> = {};
  for (const id of ids) {
    const tools = id in raw ? raw[id] : fallback;
    if (Array.isArray(tools)) resolved[id] = tools as string[];
  }
  return resolved;
}

/** Installs the providers into a fresh world beside the client apps, as every run will. */
function preflight(providers: readonly ProviderFixture[], fail: (message: string) => never): void {
  const world = new World({ seed: 0 });
  installActors(world, ACTORS);
  const actorPackages = new Set(Object.values(ACTOR_PACKAGES));
  providers.forEach((p, i) => {
    const at = `providers[${i}] (${p.name})`;
    if (actorPackages.has(p.packageName))
      fail(`${at}: package ${p.packageName} is reserved for a fuzzer client`);
    try {
      p.install(world, REFERENCE);
    } catch (error) {
      fail(`${at}.install() threw: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!world.pm.getPackageInfo(p.packageName)) fail(`${at}.install() did not install ${p.packageName}`);
    const owner = world.pm.providerForAuthority(p.authority)?.packageName;
    if (owner !== p.packageName)
      fail(`${at}: package ${p.packageName} declares no provider with authority ${p.authority}`);
  });
}

/** Wraps install() so a failure during a run is reported as the module's, not as a cetp-sim bug. */
function guarded(label: string, p: ResolvedProviderFixture): ResolvedProviderFixture {
  return {
    ...p,
    install: (world: World, variant: Variant) => {
      try {
        p.install(world, variant);
      } catch (error) {
        throw new UserModuleError(
          `${label}: ${p.name}.install() threw: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
  };
}

/**
 * Checks provider fixtures (`raw`, a non-empty array) and a `propertyTools` map, installs them once
 * into a fresh world as every run will, and returns them with install() guarded so that a failure
 * during a run names `label`. Every problem goes to `fail` (which throws). Asynchronous: checking a
 * fixture may take asking its provider (a list_tools call in a scratch world).
 */
export async function checkProviderFixtures(
  raw: readonly unknown[],
  rawPropertyTools: unknown,
  label: string,
  fail: (message: string) => never,
): Promise<ProvidersUnderTest> {
  if (raw.length === 0) fail('no provider fixture given');
  const providers = raw.map((p, i) => checkFixture(p, `providers[${i}]`, fail));
  for (const key of ['name', 'packageName', 'authority'] as const) {
    const seen = new Set<string>();
    for (const p of providers) {
      if (seen.has(p[key])) fail(`two providers share the ${key} '${p[key]}'`);
      seen.add(p[key]);
    }
  }
  checkInvariantIdsUnique(providers, fail);
  const propertyTools = checkPropertyTools(rawPropertyTools, providers, fail);
  preflight(providers, fail);
  const resolved = await resolveAll(providers, fail);
  return { providers: resolved.map((p) => guarded(label, p)), propertyTools };
}

/**
 * Refuses a variant (a --mutant's) whose planted bugs would not reach the implementations under
 * test — a provider whose install() does not pass `variant.providerBugs` on, a consumer that does not
 * run `variant.consumerBugs` — with `mutant_not_planted` (exit 2): otherwise the campaign tests them
 * unmutated and passes, saying nothing. `label` names where they came from.
 */
export async function checkVariantReaches(
  subjects: {
    readonly providers?: readonly ProviderFixture[];
    readonly consumer?: ConsumerUnderTest<CancellationLike>;
  },
  variant: Variant,
  label: string,
): Promise<void> {
  for (const [i, p] of (subjects.providers ?? []).entries()) {
    const why = await variantIgnored(p, variant);
    if (why !== null)
      throw new CliError(
        'mutant_not_planted',
        `${label}: providers[${i}] (${p.name}) cannot run planted bug(s) ${variant.providerBugs.join(', ')}: ${why}`,
      );
  }
  const consumer = subjects.consumer;
  const why = consumer ? await consumerVariantIgnored(consumer, variant) : null;
  if (consumer && why !== null)
    throw new CliError(
      'mutant_not_planted',
      `${label}: consumer (${consumer.name}) cannot run planted bug(s) ${variant.consumerBugs.join(', ')}: ${why}`,
    );
}

const CAPABILITIES = ['async_operations', 'cancellation', 'large_results'];

/** Checks a consumer's shape and that install() installs its package next to the reference providers. */
export function checkConsumer(raw: unknown, fail: (message: string) => never): ConsumerUnderTest {
  if (typeof raw !== 'object' || raw === null) return fail('the consumer must be an object');
  const c = raw as Record<string, unknown>;
  if (typeof c.name !== 'string' || !NAME.test(c.name)) fail(`consumer.name must match ${NAME.source}`);
  if (typeof c.packageName !== 'string' || c.packageName === '')
    fail('consumer.packageName must be a package name');
  if (typeof c.install !== 'function')
    fail('consumer.install must be a function (world, { variant, capabilities }) => void');
  if (typeof c.agent !== 'function')
    fail('consumer.agent must be a function (context) => { listTools, cancellation, executeJson }');
  const consumer = raw as unknown as ConsumerUnderTest;
  const world = new World({ seed: 0 });
  for (const p of [ALERTS, PAYMENTS]) p.install(world, REFERENCE);
  try {
    consumer.install(world, { variant: REFERENCE, capabilities: CAPABILITIES });
  } catch (error) {
    fail(`consumer.install() threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!world.pm.getPackageInfo(consumer.packageName))
    fail(`consumer.install() did not install ${consumer.packageName}`);
  return consumer;
}

/**
 * `checkers` and the `module-globals` verdict (src/harness/globals.ts): user code runs from here on,
 * and a run that replaces a global the simulation relies on fails (the globals as they are now are
 * the baseline: a test runner's own fakes installed before the campaign are not the module's doing).
 */
function watchingGlobals(checkers: readonly Checker[]): readonly Checker[] {
  if (checkers.some((c) => c.id === MODULE_GLOBALS_CHECKER)) return checkers;
  return [...checkers, globalsChecker(snapshotGlobals())];
}

/** The property as it runs against `consumer` (a copy; raw-driver properties are unchanged). */
export function withConsumer(def: PropertyDef, consumer: ConsumerUnderTest): PropertyDef {
  if (def.kind !== 'consumer') return def;
  return {
    ...def,
    fixture: { ...def.fixture, consumer, checkers: watchingGlobals(def.fixture.checkers) },
    // Faults aimed at the reference consumer hit this consumer instead.
    shape: {
      ...def.shape,
      faults: retargetAll(def.shape.faults, new Set([CONSUMER_PACKAGE]), [consumer.packageName]),
    },
  };
}

/** A fault aimed at a reference app, aimed at each of the user's packages instead. */
function retarget(fault: Fault, replaced: ReadonlySet<string>, packages: readonly string[]): Fault[] {
  switch (fault.kind) {
    case 'kill':
    case 'slowStart':
      return replaced.has(fault.process) ? packages.map((process) => ({ ...fault, process })) : [fault];
    case 'loseReply':
    case 'failTransaction': {
      const callees =
        fault.callee !== undefined && replaced.has(fault.callee)
          ? packages.map((callee) => ({ ...fault, callee }))
          : [fault];
      return callees.flatMap((f) =>
        f.caller !== undefined && replaced.has(f.caller) ? packages.map((caller) => ({ ...f, caller })) : [f],
      );
    }
    case 'corruptFd':
    case 'truncateFd':
      return fault.process !== undefined && replaced.has(fault.process)
        ? packages.map((process) => ({ ...fault, process }))
        : [fault];
    case 'resign':
    case 'reinstall':
    case 'uninstall':
      return replaced.has(fault.package) ? packages.map((pkg) => ({ ...fault, package: pkg })) : [fault];
    case 'clockJump':
    case 'deepSleep':
    case 'userAway':
    case 'reboot':
    case 'powerLoss':
    case 'freezeCached':
    case 'memoryPressure':
    case 'custom':
      return [fault];
  }
}

/** Faults aimed at the `replaced` packages aimed at each of `packages` instead (deduplicated). */
export function retargetAll(
  faults: readonly Fault[],
  replaced: ReadonlySet<string>,
  packages: readonly string[],
): Fault[] {
  const out = new Map<string, Fault>();
  for (const f of faults) for (const g of retarget(f, replaced, packages)) out.set(JSON.stringify(g), g);
  return [...out.values()];
}

/**
 * `checkers` and the providers' own oracles (invariants, models: src/check/user-oracles.ts), each
 * once: the property's oracles judge the user's app, and so do the user's.
 */
function withUserOracles(
  checkers: readonly Checker[],
  providers: readonly ProviderFixture[],
): readonly Checker[] {
  const have = new Set(checkers.map((c) => c.id));
  return [...checkers, ...userOracles(providers).filter((c) => !have.has(c.id))];
}

/** The property as it runs against the module's providers (a copy; the catalogue is untouched). */
export function withProviders(def: PropertyDef, module: ProvidersUnderTest): PropertyDef {
  const replaced = new Set(def.fixture.providers.map((p) => p.packageName));
  const packages = module.providers.map((p) => p.packageName);
  const faults = retargetAll(def.shape.faults, replaced, packages);
  const tools = module.propertyTools[def.id];
  const providers = module.providers;
  const floors = withAppFloors(def, declaredReach(providers)).floors;
  const checkers = withUserOracles(watchingGlobals(def.fixture.checkers ?? ALL_CHECKERS), providers);
  if (def.kind === 'consumer') {
    // The hostile provider a consumer property may install alongside stays; its tools too.
    const all = providers.flatMap((p) => Object.keys(p.tools).map((t) => `${p.name}.${t}`));
    const hostile = def.shape.tools.filter((t) => t.startsWith('hostile.'));
    const shape = { ...def.shape, providers, faults, tools: [...(tools ?? all), ...hostile] };
    return { ...def, ...(floors ? { floors } : {}), fixture: { ...def.fixture, providers, checkers }, shape };
  }
  const { tools: _builtInTools, ...builtIn } = def.shape;
  const shape = { ...builtIn, providers, faults, ...(tools !== undefined ? { tools } : {}) };
  return { ...def, ...(floors ? { floors } : {}), fixture: { ...def.fixture, providers, checkers }, shape };
}
