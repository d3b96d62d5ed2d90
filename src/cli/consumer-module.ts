/**
 * `--consumer MODULE`: a user's own consumer app, for the consumer-driven properties.
 *
 * The module interface (a named export, or the same name on the default export) mirrors what the
 * consumer-driven scenarios (src/fuzz/scenario/consumer.ts) do with the reference consumer:
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
import type { ConsumerUnderTest } from '../fuzz/scenario/consumer.ts';
import type { PropertyDef } from '../fuzz/suites.ts';
import { consumerVariantIgnored } from '../harness/consumer-planted.ts';
import { CliError } from '../harness/errors.ts';
import { checkConsumer, withConsumer as withConsumerUnderTest } from '../harness/subjects.ts';
import type { Variant } from '../subjects/subjects.ts';
import { exported, importUserModule, refuseEscapes } from './module-loader.ts';

export type { ConsumerUnderTest } from '../fuzz/scenario/consumer.ts';

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
  return withConsumerUnderTest(def, module.consumer);
}

export async function loadConsumerModule(specifier: string, cwd: string): Promise<ConsumerModule> {
  const module = await importUserModule('--consumer', specifier, cwd);
  const fail = (message: string): never => {
    throw new CliError('invalid_consumer_module', `--consumer ${specifier}: ${message}`);
  };
  const raw = exported(module, ['consumer']);
  if (typeof raw !== 'object' || raw === null) return fail("the module must export 'consumer', an object");
  const consumer = checkConsumer(raw, fail);
  refuseEscapes('--consumer', specifier, 'while cetp-sim checked it (install())');
  return { specifier, consumer };
}

/**
 * Refuses a variant whose planted consumer bugs would not reach the module's consumer: `--mutant
 * consumer-…` against a consumer that ignores `variant.consumerBugs` would otherwise test the
 * unmutated consumer and pass, saying nothing. Judged from behaviour (src/harness/consumer-planted.ts).
 */
export async function checkConsumerVariantReaches(module: ConsumerModule, variant: Variant): Promise<void> {
  const why = await consumerVariantIgnored(module.consumer, variant);
  if (why !== null)
    throw new CliError(
      'mutant_not_planted',
      `--consumer ${module.specifier}: consumer (${module.consumer.name}) cannot run planted bug(s) ${variant.consumerBugs.join(', ')}: ${why}`,
    );
}
