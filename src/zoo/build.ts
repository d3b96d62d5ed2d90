/**
 * From a description (spec.ts) to a whole app, as a user would write it with the public API:
 * `defineProvider({ packageName, descriptor, tools, authorize })` and its fuzz fixture (the argument
 * pools and the args the business rule refuses). A mistake (mistakes.ts) is applied as a change of
 * the tools or of the definition before defineProvider sees them.
 */
import type { JsonValue } from '../base/json.ts';
import {
  type AuthorizePolicy,
  type DefinedProvider,
  defineProvider,
  type ProviderDefinition,
  type ProviderFixture,
  type ProviderTool,
} from '../index.ts';
import { argPool, isUrgent, refusedCreateArgs } from './args.ts';
import { invariantsOf, modelOf } from './model.ts';
import { type AppSpec, isRead, type Names, namesOf } from './spec.ts';
import { type Kit, kitOf, toolsOf } from './tools.ts';
import { type ManifestVariant, NO_VARIANT, withVariant } from './variants.ts';

/** A change to a correct app: its tools, its definition, its fixture (each optional). */
export interface Variation {
  readonly tools?: (tools: readonly ProviderTool[], kit: Kit) => readonly ProviderTool[];
  readonly definition?: (definition: ProviderDefinition, kit: Kit) => ProviderDefinition;
  readonly fixture?: (fixture: ProviderFixture, kit: Kit) => ProviderFixture;
  /** The app's manifest variants (variants.ts) under the change; default: the app's own. */
  readonly manifest?: (own: ManifestVariant) => ManifestVariant;
}

export interface ZooApp {
  readonly spec: AppSpec;
  readonly names: Names;
  readonly defined: DefinedProvider;
  readonly fixture: ProviderFixture;
}

export function authorizeOf(spec: AppSpec, names: Names): AuthorizePolicy | undefined {
  if (spec.auth === 'free-read') return { freeScopes: [names.readScope] };
  if (spec.auth === 'free-all') return { freeScopes: [names.readScope, names.writeScope] };
  return undefined; // defineProvider's default: every scope granted by the user, per caller
}

export function definitionOf(spec: AppSpec, tools: readonly ProviderTool[]): ProviderDefinition {
  const names = namesOf(spec);
  const { noun } = spec.entity;
  const authorize = authorizeOf(spec, names);
  return {
    packageName: names.packageName,
    versions: spec.versions,
    descriptor: {
      providerName: `Zoo ${noun}s ${spec.index}`,
      description: `Your ${spec.entity.plural}`,
      scopes: [
        { name: names.readScope, description: `Read your ${noun}s`, access: 'read', sensitivity: 'personal' },
        {
          name: names.writeScope,
          description: `Change your ${noun}s`,
          access: 'write',
          sensitivity: 'personal',
        },
      ],
    },
    tools,
    ...(authorize !== undefined ? { authorize } : {}),
  };
}

/** The fixture's argument pools, by tool name. */
export function poolsOf(spec: AppSpec): Record<string, JsonValue[]> {
  const names = namesOf(spec);
  return Object.fromEntries(spec.tools.map((t) => [names.tool(t.kind), argPool(spec, names, t.kind)]));
}

/**
 * What the app's design says of each tool — effect, scopes, confirmation policy — stated in the
 * fixture as a user may: the fuzzer refuses a fixture that list_tools contradicts (exit 2).
 */
export function designOf(spec: AppSpec) {
  const names = namesOf(spec);
  const by = <T>(f: (t: AppSpec['tools'][number]) => T) =>
    Object.fromEntries(spec.tools.map((t) => [names.tool(t.kind), f(t)]));
  return {
    effects: by((t) => (isRead(t.kind) ? 'read' : t.kind)),
    scopes: by((t) => [isRead(t.kind) ? names.readScope : names.writeScope]),
    confirmations: by((t) => t.confirmation),
  };
}

/** The app a description makes (correct by construction), or with `variation` applied. */
export function buildApp(spec: AppSpec, variation: Variation = {}): ZooApp {
  const kit = kitOf(spec);
  const { names } = kit;
  const correct = toolsOf(kit);
  const tools = variation.tools ? variation.tools(correct, kit) : correct;
  const base = definitionOf(spec, tools);
  const defined = defineProvider(variation.definition ? variation.definition(base, kit) : base);
  const fixture = defined.fixture({
    name: names.fixture,
    tools: poolsOf(spec),
    refusedArgs: { [names.tool('create')]: [refusedCreateArgs(spec)] },
    // The design's runtime risk (3.4-12): a provider_policy tool asks for urgent args.
    approvalRequired: Object.fromEntries(
      spec.tools
        .filter((t) => t.confirmation === 'provider_policy')
        .map((t) => [names.tool(t.kind), (args: JsonValue) => isUrgent(spec, args)]),
    ),
    ...designOf(spec),
    // The app's own oracles (model.ts), checked after every run as `model:` and `invariant:` verdicts.
    model: modelOf(spec),
    invariants: invariantsOf(spec),
    ...(defined.userGrantedScopes === null ? { userGrantedScopes: [names.writeScope] } : {}),
  });
  const own = spec.manifest ?? NO_VARIANT;
  const varied = withVariant(fixture, defined, variation.manifest ? variation.manifest(own) : own);
  return { spec, names, defined, fixture: variation.fixture ? variation.fixture(varied, kit) : varied };
}
