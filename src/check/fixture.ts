/**
 * Fixtures derived, not repeated: what a provider's own list_tools declares of each tool — its
 * effect, scopes, confirmation policy and input schema — is what the oracles judge it by, so a
 * ProviderFixture need not say it again. This module is the one place that fills it in:
 *
 * - resolveFixtureWith(fixture, listed): from a list_tools answer already at hand (the reference
 *   fixtures pass their definition's listTools(), the very rendering list_tools answers with);
 * - resolveProviderFixture(fixture): installs the package into a scratch World beside a probe
 *   caller, negotiates and calls list_tools on the wire, and resolves from that answer (the CLI's
 *   `--provider` modules, and anything else that holds only the fixture).
 *
 * A field the fixture does give must agree with list_tools: a contradiction is an issue naming the
 * field (`effects.create_note: the fixture says 'read', list_tools says 'create'`). A tool the
 * fixture fuzzes that list_tools does not show the probe (hidden per caller, or a v1-only provider)
 * must then be described by hand.
 *
 * variantIgnored(fixture, variant) answers the other trap of a hand-written install(): a provider
 * that does not pass `variant.providerBugs` through runs without the planted bug, so `--mutant`
 * would quietly test the reference.
 */
import canonicalize from 'canonicalize';
import { TOOL_PROVIDER_ACTION } from '../protocol/discovery.ts';
import type { AppContext } from '../sim/app/context.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import { certificate } from '../sim/pm/signing.ts';
import { World } from '../sim/world.ts';
import type { ProviderFixture, ResolvedProviderFixture, Variant } from '../subjects/subjects.ts';

/** What the oracles need of one tool, as list_tools answers it (a wire ToolDescriptor's fields). */
export interface ListedTool {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly input_schema: unknown;
  /** Optional here: a provider that answers none declares no output contract to judge. */
  readonly output_schema?: unknown;
  readonly annotations: { readonly effect: string; readonly confirmation: string };
}

/** One thing wrong with a fixture, at a field path of it (`effects.create_note`). */
export interface FixtureIssue {
  readonly path: string;
  readonly message: string;
}

export type Resolution =
  | { readonly ok: true; readonly fixture: ResolvedProviderFixture }
  | { readonly ok: false; readonly issues: readonly FixtureIssue[] };

/** A fixture that cannot be resolved; the message lists every issue. */
export class FixtureError extends Error {
  override readonly name = 'FixtureError';
  constructor(
    readonly fixture: string,
    readonly issues: readonly FixtureIssue[],
  ) {
    super(`provider fixture '${fixture}': ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  }
}

const REFERENCE: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };
/** The probe caller's package: an ordinary app that may discover tool providers. */
export const PROBE_PACKAGE = 'com.cetpsim.fixture.probe';

const same = (a: unknown, b: unknown): boolean => canonicalize(a) === canonicalize(b);
const show = (v: unknown): string => JSON.stringify(v);

type Field = 'effects' | 'scopes' | 'confirmations' | 'inputSchemas' | 'outputSchemas';

/** Each field: what list_tools says of a tool, and how the fixture writes it. */
const FIELDS: readonly (readonly [Field, (t: ListedTool) => unknown])[] = [
  ['effects', (t) => t.annotations.effect],
  ['scopes', (t) => [...t.scopes]],
  ['confirmations', (t) => t.annotations.confirmation],
  ['inputSchemas', (t) => t.input_schema],
  ['outputSchemas', (t) => t.output_schema],
];

function sameField(field: Field, declared: unknown, listed: unknown): boolean {
  // Scopes are a set (3.4-14): order is not a contradiction.
  if (field === 'scopes' && Array.isArray(declared) && Array.isArray(listed))
    return same([...declared].sort(), [...listed].sort());
  return same(declared, listed);
}

/**
 * The fixture with effects, scopes, confirmations and input schemas filled in from `listed` (a
 * list_tools answer), or `unavailable` (why there is none: then every field must be declared).
 */
export function resolveFixtureWith(
  fixture: ProviderFixture,
  listed: readonly ListedTool[] | { readonly unavailable: string },
): Resolution {
  const issues: FixtureIssue[] = [];
  const tools = 'unavailable' in listed ? [] : listed;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const resolved: Record<Field, Record<string, unknown>> = {
    effects: {},
    scopes: {},
    confirmations: {},
    inputSchemas: {},
    outputSchemas: {},
  };
  for (const [field, read] of FIELDS) {
    const declared = (fixture[field] ?? {}) as Record<string, unknown>;
    for (const t of tools) resolved[field][t.name] = read(t);
    for (const [tool, value] of Object.entries(declared)) {
      const wire = byName.get(tool);
      if (wire !== undefined && !sameField(field, value, read(wire))) {
        issues.push({
          path: `${field}.${tool}`,
          message: `the fixture says ${show(value)}, list_tools says ${show(read(wire))} (leave it out: it is read from list_tools)`,
        });
      }
      resolved[field][tool] ??= value;
    }
  }
  for (const tool of Object.keys(fixture.tools)) {
    if (byName.has(tool)) continue;
    for (const field of ['effects', 'scopes'] as const) {
      if (resolved[field][tool] !== undefined) continue;
      const why =
        'unavailable' in listed
          ? `list_tools could not be read (${listed.unavailable})`
          : `list_tools does not list '${tool}' (listed: ${tools.map((t) => t.name).join(', ') || 'none'})`;
      issues.push({ path: `${field}.${tool}`, message: `cannot be derived: ${why}; declare it` });
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    fixture: {
      ...fixture,
      effects: resolved.effects as Record<string, string>,
      scopes: resolved.scopes as Record<string, readonly string[]>,
      confirmations: resolved.confirmations as Record<string, string>,
      inputSchemas: resolved.inputSchemas,
      outputSchemas: resolved.outputSchemas,
    },
  };
}

function envelope(ctx: AppContext, token: string): Bundle {
  const b = new Bundle();
  b.putInt('protocol_version', 2);
  b.putString('session_token', token);
  b.putString('request_id', ctx.seededUuid());
  b.putLong('deadline_at_ms', ctx.currentTimeMillis() + 30_000);
  return b;
}

function dataOf(reply: Bundle | null, method: string): Record<string, unknown> {
  if (reply?.getString('status') !== 'success')
    throw new Error(`${method} answered ${reply?.getString('error_code') ?? 'nothing'}`);
  return JSON.parse(reply.getString('data') ?? 'null') as Record<string, unknown>;
}

function isListedTool(t: unknown): t is ListedTool {
  const x = t as Partial<ListedTool> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.name === 'string' &&
    Array.isArray(x.scopes) &&
    typeof x.annotations?.effect === 'string' &&
    typeof x.annotations.confirmation === 'string'
  );
}

/** Negotiates and calls list_tools as `ctx`'s app, on the wire. */
async function listToolsAs(ctx: AppContext, authority: string): Promise<ListedTool[]> {
  const client = await ctx.contentResolver.acquireUnstableContentProviderClient(authority);
  if (!client) throw new Error(`authority ${authority} cannot be acquired`);
  const hello = new Bundle();
  hello.putIntArray('consumer_versions', [2]);
  hello.putString(
    'consumer_capabilities',
    JSON.stringify(['async_operations', 'cancellation', 'large_results']),
  );
  const session = dataOf(await client.call('negotiate', null, hello), 'negotiate');
  const token = typeof session.session_token === 'string' ? session.session_token : '';
  const list = dataOf(await client.call('list_tools', null, envelope(ctx, token)), 'list_tools');
  const tools = Array.isArray(list.tools) ? list.tools : [];
  return tools.filter(isListedTool);
}

/** A scratch World with the fixture installed (with `variant`) beside the probe caller. */
function scratchWorld(fixture: ProviderFixture, variant: Variant): World {
  const world = new World({ seed: 0 });
  fixture.install(world, variant);
  world.install(
    {
      manifest: {
        packageName: PROBE_PACKAGE,
        targetSdk: 34,
        queries: { intents: [{ action: TOOL_PROVIDER_ACTION }] },
      },
      signing: { signers: [certificate(`${PROBE_PACKAGE}-key`)] },
    },
    () => ({}),
  );
  return world;
}

type Probe = { world: World; answer: ListedTool[] | { unavailable: string } } | { unavailable: string };

/** Installs the fixture (with `variant`) in a scratch World and calls list_tools as the probe. */
async function probe(fixture: ProviderFixture, variant: Variant): Promise<Probe> {
  let world: World;
  try {
    world = scratchWorld(fixture, variant);
  } catch (error) {
    return { unavailable: `install() threw: ${error instanceof Error ? error.message : String(error)}` };
  }
  let answer: ListedTool[] | { unavailable: string } = { unavailable: 'the probe never ran' };
  world.spawnIn(PROBE_PACKAGE, 'fixture-probe', async (ctx) => {
    // Still this when the run ends: a call the provider never answered (its Promise never settled).
    answer = {
      unavailable:
        'negotiate or list_tools never answered (the provider returned a Promise that never settles)',
    };
    try {
      answer = await listToolsAs(ctx, fixture.authority);
    } catch (error) {
      answer = { unavailable: error instanceof Error ? error.message : String(error) };
    }
  });
  await world.run();
  return { world, answer };
}

/** What the provider's list_tools answers the probe caller, or why it could not be read. */
export async function listToolsOf(
  fixture: ProviderFixture,
): Promise<readonly ListedTool[] | { readonly unavailable: string }> {
  const probed = await probe(fixture, REFERENCE);
  return 'world' in probed ? probed.answer : probed;
}

/** The SDK's start-up line for a tool its catalogue refused (provider.ts): `tool NAME disabled: WHY`. */
const DISABLED_LINE = /^tool (\S+) disabled: (.*)$/s;

/** The tools the provider's own start-up log says it disabled, with why (the SDK logs each). */
function disabledAtStartUp(world: World, packageName: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of world.trace.ofKind('log')) {
    const { actor, level, message } = e.data as { actor?: unknown; level?: unknown; message?: unknown };
    if (level !== 'E' || typeof message !== 'string' || typeof actor !== 'string') continue;
    if (actor !== packageName && !actor.startsWith(`${packageName}:`)) continue;
    const m = DISABLED_LINE.exec(message);
    if (m?.[1] && m[2] !== undefined && !out.has(m[1])) out.set(m[1], m[2]);
  }
  return out;
}

/**
 * The fixture resolved from its provider's list_tools on the wire; throws FixtureError. A tool the
 * fixture fuzzes that the provider disabled at start-up (its log says why, e.g. a delete declared
 * `confirmation: never`, 3.4-09) is refused, naming that issue: described by hand, every call of it
 * would answer TOOL_NOT_FOUND and judge nothing.
 */
export async function resolveProviderFixture(fixture: ProviderFixture): Promise<ResolvedProviderFixture> {
  const probed = await probe(fixture, REFERENCE);
  const listed = 'world' in probed ? probed.answer : probed;
  const resolution = resolveFixtureWith(fixture, listed);
  const issues = resolution.ok ? [] : [...resolution.issues];
  if ('world' in probed && Array.isArray(listed)) {
    const disabled = disabledAtStartUp(probed.world, fixture.packageName);
    for (const tool of Object.keys(fixture.tools)) {
      const why = disabled.get(tool);
      if (why === undefined || listed.some((t) => t.name === tool)) continue;
      issues.push({
        path: `tools.${tool}`,
        message: `the provider disabled '${tool}' at start-up (${why}): fix the tool, or leave it out of the fixture`,
      });
    }
  }
  if (!resolution.ok || issues.length > 0) throw new FixtureError(fixture.name, issues);
  return resolution.fixture;
}

/** What a provider instance says of the planted bugs it runs with (the SDK's CetpV2ContentProvider). */
interface PlantedBugsView {
  plantedBugs(): ReadonlySet<string> | null;
}

/**
 * Why `variant`'s provider bugs would not reach the fixture's provider (null when they do): its
 * install() does not pass them through, or its provider is not built on the SDK.
 */
export async function variantIgnored(fixture: ProviderFixture, variant: Variant): Promise<string | null> {
  if (variant.providerBugs.length === 0) return null;
  const probed = await probe(fixture, variant);
  if (!('world' in probed)) return `its provider could not be started (${probed.unavailable})`;
  const app = probed.world.process(fixture.packageName).app;
  if (!app) {
    const why = Array.isArray(probed.answer) ? 'it never started' : probed.answer.unavailable;
    return `its provider could not be started (${why})`;
  }
  const instances = Object.values(app.providers ?? {}) as unknown[];
  const sdk = instances.filter(
    (p): p is PlantedBugsView => typeof (p as Partial<PlantedBugsView>).plantedBugs === 'function',
  );
  if (sdk.length === 0)
    return 'its provider is not built on the SDK (CetpV2ContentProvider / defineProvider), where bugs are planted';
  const planted = sdk.flatMap((p) => [...(p.plantedBugs() ?? [])]);
  const missing = variant.providerBugs.filter((b) => !planted.includes(b));
  if (missing.length === 0) return null;
  return (
    `its install(world, variant) does not pass variant.providerBugs to the provider (missing: ${missing.join(', ')}); ` +
    'pass them as ProviderOptions.plantedBugs (new Set(variant.providerBugs)), or install with defineProvider(...).install'
  );
}
