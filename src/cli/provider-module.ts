/**
 * `--provider MODULE`: fuzzing a user's own provider apps instead of the built-in reference apps.
 *
 * The module interface (named exports, or the same names on the default export):
 *
 *   export const providers: ProviderFixture[]   // one or more provider apps, see below
 *   export const propertyTools?: { [propertyId]: string[] }   // optional, tools as 'name.tool'
 *
 * A ProviderFixture (src/check/subjects.ts; `defineProvider(...).fixture({ name, tools })` makes one) is
 *   name         a short id, [a-z][a-z0-9_]*, used in scenarios and replay files
 *   packageName  the Android package install() installs
 *   authority    the ContentProvider authority the CETP provider answers on
 *   install(world, variant)  installs the package into a fresh simulated World (world.install(spec,
 *                factory)); `variant` carries the planted bugs and ablated rules of --mutant, which
 *                the provider must receive (ProviderOptions.plantedBugs / disabledRules)
 *   tools        by tool name, a non-empty pool of JSON args values the fuzzer picks from
 *   userGrantedScopes  the scopes the provider grants only after the user agrees in its UI
 *   effects, scopes, confirmations, inputSchemas (optional) by tool name: read from the provider's
 *                own list_tools (src/check/fixture.ts); given here, they must agree with it
 *
 * Every property then runs against these providers — raw-driver and consumer-driven properties
 * alike: the generated scenarios call their tools (all of them, or the property's list in
 * `propertyTools`), the faults aimed at the reference apps' processes and Binder links are aimed at
 * the user's packages instead, and the property's oracles judge the user's packages as the
 * providers under test. (A consumer-driven property keeps its hostile provider, if it has one.)
 * The module is checked before any run: its shape, that install() installs the named package with
 * the named authority in a fresh world alongside the fuzzer's client apps, and that what it
 * declares agrees with its list_tools; with --mutant, that the planted bug reaches its provider.
 */
import { ACTOR_PACKAGES, installActors, type ProviderFixture } from '../../properties/scenario/fixtures.ts';
import { ACTORS, REFERENCE, type Variant } from '../../properties/scenario/model.ts';
import { PROPERTIES, type PropertyDef } from '../../properties/suites.ts';
import { FixtureError, resolveProviderFixture, variantIgnored } from '../check/fixture.ts';
import type { ProviderFixture as UserProviderFixture } from '../check/subjects.ts';
import { EFFECTS } from '../protocol/index.ts';
import type { Fault } from '../sim/faults.ts';
import { World } from '../sim/world.ts';
import { CliError } from './errors.ts';
import { exported, importUserModule } from './module-loader.ts';

export interface ProviderModule {
  readonly specifier: string;
  readonly providers: readonly ProviderFixture[];
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
    if (!(tool in tools)) fail(`${at}: '${tool}' is not in tools`);
    if (!valid(v)) fail(`${at}.${tool} must be ${what}`);
  }
}

function checkFixture(raw: unknown, at: string, fail: (message: string) => never): UserProviderFixture {
  if (!isRecord(raw)) return fail(`${at} must be an object (a ProviderFixture)`);
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
  if (!isStrings(userGrantedScopes))
    fail(`${at}.userGrantedScopes must be an array of strings (scopes granted only after the user agrees)`);
  const effect = (v: unknown) => (EFFECTS as readonly unknown[]).includes(v);
  checkByTool(raw.effects, `${at}.effects`, pools, effect, `one of ${EFFECTS.join(', ')}`, fail);
  checkByTool(raw.scopes, `${at}.scopes`, pools, isStrings, "the tool's scopes, an array of strings", fail);
  const policy = (v: unknown) => typeof v === 'string';
  checkByTool(raw.confirmations, `${at}.confirmations`, pools, policy, 'a confirmation policy', fail);
  const schema = (v: unknown) => typeof v === 'boolean' || isRecord(v);
  checkByTool(
    raw.inputSchemas,
    `${at}.inputSchemas`,
    pools,
    schema,
    'a JSON Schema (an object or a boolean)',
    fail,
  );
  return raw as unknown as UserProviderFixture;
}

/** Each fixture with what its provider's list_tools declares filled in (src/check/fixture.ts). */
async function resolveAll(
  providers: readonly UserProviderFixture[],
  fail: (message: string) => never,
): Promise<ProviderFixture[]> {
  const resolved: ProviderFixture[] = [];
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

function checkPropertyTools(
  raw: unknown,
  providers: readonly UserProviderFixture[],
  fail: (message: string) => never,
): Record<string, readonly string[]> {
  if (raw === undefined) return {};
  if (!isRecord(raw)) return fail('propertyTools must map property ids to lists of tools');
  const known = new Set(providers.flatMap((p) => Object.keys(p.tools).map((t) => `${p.name}.${t}`)));
  for (const [id, tools] of Object.entries(raw)) {
    if (!PROPERTIES.some((p) => p.id === id))
      fail(`propertyTools: unknown property '${id}'; valid: ${PROPERTIES.map((p) => p.id).join(', ')}`);
    if (!Array.isArray(tools) || tools.length === 0)
      fail(`propertyTools.${id} must be a non-empty array of 'name.tool'`);
    for (const tool of tools as unknown[])
      if (typeof tool !== 'string' || !known.has(tool))
        fail(`propertyTools.${id}: unknown tool ${JSON.stringify(tool)}; known: ${[...known].join(', ')}`);
  }
  return raw as Record<string, readonly string[]>;
}

/** Installs the providers into a fresh world beside the client apps, as every run will. */
function preflight(providers: readonly UserProviderFixture[], fail: (message: string) => never): void {
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
function guarded(specifier: string, p: ProviderFixture): ProviderFixture {
  return {
    ...p,
    install: (world: World, variant: Variant) => {
      try {
        p.install(world, variant);
      } catch (error) {
        throw new UserModuleError(
          `--provider ${specifier}: ${p.name}.install() threw: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
  };
}

export async function loadProviderModule(specifier: string, cwd: string): Promise<ProviderModule> {
  const module = await importUserModule('--provider', specifier, cwd);
  const fail = (message: string): never => {
    throw new CliError('invalid_provider_module', `--provider ${specifier}: ${message}`);
  };
  const raw = exported(module, ['providers']);
  if (!Array.isArray(raw) || raw.length === 0)
    fail("the module must export 'providers', a non-empty array of provider fixtures");
  const providers = (raw as unknown[]).map((p, i) => checkFixture(p, `providers[${i}]`, fail));
  for (const key of ['name', 'packageName', 'authority'] as const) {
    const seen = new Set<string>();
    for (const p of providers) {
      if (seen.has(p[key])) fail(`two providers share the ${key} '${p[key]}'`);
      seen.add(p[key]);
    }
  }
  const propertyTools = checkPropertyTools(exported(module, ['propertyTools']), providers, fail);
  preflight(providers, fail);
  const resolved = await resolveAll(providers, fail);
  return { specifier, providers: resolved.map((p) => guarded(specifier, p)), propertyTools };
}

/**
 * Refuses a variant whose planted provider bugs would not reach the module's providers: `--mutant`
 * against a provider that ignores `variant.providerBugs` would otherwise test the unmutated provider
 * and pass, saying nothing.
 */
export async function checkVariantReaches(module: ProviderModule, variant: Variant): Promise<void> {
  for (const [i, p] of module.providers.entries()) {
    const why = await variantIgnored(p, variant);
    if (why !== null)
      throw new CliError(
        'mutant_not_planted',
        `--provider ${module.specifier}: providers[${i}] (${p.name}) cannot run planted bug(s) ${variant.providerBugs.join(', ')}: ${why}`,
      );
  }
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

/** The property as it runs against the module's providers (a copy; the catalogue is untouched). */
export function withProviders(def: PropertyDef, module: ProviderModule): PropertyDef {
  const replaced = new Set(def.fixture.providers.map((p) => p.packageName));
  const packages = module.providers.map((p) => p.packageName);
  const faults = retargetAll(def.shape.faults, replaced, packages);
  const tools = module.propertyTools[def.id];
  const providers = module.providers;
  if (def.kind === 'consumer') {
    // The hostile provider a consumer property may install alongside stays; its tools too.
    const all = providers.flatMap((p) => Object.keys(p.tools).map((t) => `${p.name}.${t}`));
    const hostile = def.shape.tools.filter((t) => t.startsWith('hostile.'));
    return {
      ...def,
      fixture: { ...def.fixture, providers },
      shape: { ...def.shape, providers, faults, tools: [...(tools ?? all), ...hostile] },
    };
  }
  const { tools: _builtInTools, ...shape } = def.shape;
  return {
    ...def,
    fixture: { ...def.fixture, providers },
    shape: { ...shape, providers, faults, ...(tools !== undefined ? { tools } : {}) },
  };
}
