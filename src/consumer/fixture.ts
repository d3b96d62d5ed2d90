/**
 * The reference consumer as a `--consumer MODULE` for the command line (src/cli/consumer-module.ts):
 * `install` puts the consumer app into a fresh World with a variant's planted consumer bugs and
 * ablated rules; `execute` asks it, in its own process, to call a tool as an agent would. The shape
 * is structural, so this module does not depend on the CLI.
 */
import type { AppContext } from '../sim/context.ts';
import type { JsonValue } from '../sim/json.ts';
import type { World } from '../sim/world.ts';
import { bridgeIn, CONSUMER_PACKAGE, consumerApp, consumerPackage } from './app.ts';
import { isConsumerBug } from './gates.ts';
import type { ToolOutcome } from './outcomes.ts';

export interface ConsumerVariant {
  readonly consumerBugs: readonly string[];
  readonly disabledRules: readonly string[];
}

export const consumer = {
  name: 'reference',
  packageName: CONSUMER_PACKAGE,
  install(world: World, variant: ConsumerVariant): void {
    world.install(
      consumerPackage(),
      consumerApp({
        // Bugs of other components (the provider's) are not the consumer's to plant.
        plantedBugs: variant.consumerBugs.filter(isConsumerBug),
        disabledRules: [...variant.disabledRules],
      }),
    );
  },
  execute(
    context: AppContext,
    call: { readonly provider: string; readonly tool: string; readonly args: JsonValue },
  ): Promise<ToolOutcome> {
    return bridgeIn(context).execute(call.provider, call.tool, call.args);
  },
};
