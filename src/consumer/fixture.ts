/**
 * The reference consumer as a consumer under test (the shape `cetp-sim fuzz --consumer MODULE`
 * expects, and what the consumer-driven properties install by default): `install` puts the consumer
 * app into a fresh World with a variant's planted consumer bugs, ablated rules and offered
 * capabilities, resuming its journal on every process start; `agent` is its ExternalToolBridge in
 * the consumer's own process. The shape is structural, so this module depends on neither the CLI
 * nor the property suites.
 */
import { CAPABILITIES, type Capability } from '../protocol/index.ts';
import { readingOptions } from '../protocol/readings.ts';
import type { AppContext } from '../sim/app/context.ts';
import type { World } from '../sim/world.ts';
import { bridgeIn, CONSUMER_PACKAGE, consumerApp, consumerPackage } from './app.ts';
import type { ExternalToolBridge } from './bridge.ts';
import type { ConsumerVariants } from './options.ts';
import { isConsumerBug } from './planted.ts';

export interface ConsumerVariant {
  readonly consumerBugs: readonly string[];
  readonly disabledRules: readonly string[];
  /** Readings of ambiguous spec points (src/protocol/readings.ts); the consumer takes its own side's. */
  readonly readings?: { readonly consumer?: Readonly<Record<string, string>> };
}

const isCapability = (c: string): c is Capability => (CAPABILITIES as readonly string[]).includes(c);

export const consumer = {
  name: 'reference',
  packageName: CONSUMER_PACKAGE,
  install(
    world: World,
    options: { readonly variant: ConsumerVariant; readonly capabilities: readonly string[] },
  ): void {
    world.install(
      consumerPackage(),
      consumerApp({
        // Bugs of other components (the provider's) are not the consumer's to plant.
        plantedBugs: options.variant.consumerBugs.filter(isConsumerBug),
        disabledRules: [...options.variant.disabledRules],
        variants: readingOptions('consumer', options.variant.readings?.consumer) as Partial<ConsumerVariants>,
        capabilities: options.capabilities.filter(isCapability),
        resumeOnStart: true,
      }),
    );
  },
  agent(context: AppContext): ExternalToolBridge {
    return bridgeIn(context);
  },
};
