/**
 * `--consumer MODULE`: a user's own consumer app, for the consumer-driven properties.
 *
 * The module interface (a named export, or the same name on the default export) mirrors what the
 * consumer-driven scenarios (properties/scenario/consumer.ts) do with the reference consumer:
 *
 *   export const consumer = {
 *     name: 'mine',                  // a short id, [a-z][a-z0-9_]*
 *     packageName: 'com.example.agent',
 *     // Installs the consumer app into a fresh simulated World. Scenarios kill and restart its
 *     // process: on every start it must resume the executions it had journaled.
 *     install(world, { variant, capabilities }) { … },
 *     // The agent-facing API inside the consumer's process (`context` is its AppContext):
 *     agent(context) {
 *       return {
 *         listTools(): Promise<unknown>,
 *         cancellation(): { cancel(): void },
 *         executeJson(providerPackage, toolName, argsJson, { cancel? }): Promise<unknown>,
 *       };
 *     },
 *   };
 *
 * The consumer oracles judge a consumer by what it sends on the wire and by its audit events
 * (src/consumer/audit.ts); a consumer that records none is judged by the wire alone.
 *
 * The module is loaded and checked here — its shape, and that install() installs its package next
 * to the reference providers — and replaces the reference consumer in the consumer-driven
 * properties (withConsumer); the raw-driver properties have no consumer to replace.
 */
import type { ConsumerUnderTest } from '../../properties/scenario/consumer.ts';
import { ALERTS, PAYMENTS } from '../../properties/scenario/fixtures.ts';
import { REFERENCE } from '../../properties/scenario/model.ts';
import type { PropertyDef } from '../../properties/suites.ts';
import { CONSUMER_PACKAGE } from '../consumer/app.ts';
import { World } from '../sim/world.ts';
import { CliError } from './errors.ts';
import { exported, importUserModule } from './module-loader.ts';
import { retargetAll } from './provider-module.ts';

export type { ConsumerUnderTest } from '../../properties/scenario/consumer.ts';

export interface ConsumerModule {
  readonly specifier: string;
  readonly consumer: ConsumerUnderTest;
}

/** The selected properties that drive a consumer (kind 'consumer'): the ones a --consumer module changes. */
export function consumerImpact(defs: readonly PropertyDef[]): { properties: string[]; note: string } {
  const driven = defs.filter((d) => d.kind === 'consumer').map((d) => d.id);
  const note =
    driven.length === 0
      ? 'none of the selected properties drives a consumer (the others play the client with the raw protocol driver)'
      : `it replaces the reference consumer in ${driven.join(', ')}`;
  return { properties: driven, note };
}

/** The property as it runs against the module's consumer (a copy; raw-driver properties are unchanged). */
export function withConsumer(def: PropertyDef, module: ConsumerModule): PropertyDef {
  if (def.kind !== 'consumer') return def;
  const { consumer } = module;
  return {
    ...def,
    fixture: { ...def.fixture, consumer },
    // Faults aimed at the reference consumer hit the module's consumer instead.
    shape: {
      ...def.shape,
      faults: retargetAll(def.shape.faults, new Set([CONSUMER_PACKAGE]), [consumer.packageName]),
    },
  };
}

const CAPABILITIES = ['async_operations', 'cancellation', 'large_results'];

export async function loadConsumerModule(specifier: string, cwd: string): Promise<ConsumerModule> {
  const module = await importUserModule('--consumer', specifier, cwd);
  const fail = (message: string): never => {
    throw new CliError('invalid_consumer_module', `--consumer ${specifier}: ${message}`);
  };
  const raw = exported(module, ['consumer']);
  if (typeof raw !== 'object' || raw === null) return fail("the module must export 'consumer', an object");
  const c = raw as Record<string, unknown>;
  if (typeof c.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(c.name))
    fail('consumer.name must match [a-z][a-z0-9_]*');
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
  return { specifier, consumer };
}
