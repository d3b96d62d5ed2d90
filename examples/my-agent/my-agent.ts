/**
 * Your own assistant app as a CETP consumer: `com.example.myagent`, built on cetp-sim's consumer
 * library (discovery, negotiation, retries with the same request_id, confirmations, async
 * operations, the execution journal), with its own package, signing key and capabilities.
 *
 * What `cetp-sim fuzz --consumer` needs of it (ConsumerUnderTest): install it into a fresh World —
 * passing the run's planted consumer bugs and ablated rules through (so `--mutant consumer-…`
 * reaches it), offering the capabilities the scenario asks for that it supports, and resuming its
 * journaled executions on every process start (scenarios kill and restart it) — and hand the
 * agent-facing API inside its process.
 *
 * Written only against cetp-sim's public API. In your own project, import from 'cetp-sim' instead
 * of the relative path (this example sits inside the cetp-sim repository).
 */
import {
  type AppContext,
  bridgeIn,
  type CancelSignal,
  type ConsumerAppOptions,
  type ConsumerUnderTest,
  consumerApp,
  consumerPackage,
  isConsumerBug,
  type protocol,
  type Variant,
  type World,
} from '../../src/index.ts';

export const MY_AGENT_PACKAGE = 'com.example.myagent';

/** The capabilities this app implements (it could leave some out). */
const SUPPORTED: readonly protocol.Capability[] = ['async_operations', 'cancellation', 'large_results'];

/** The consumer library's options for one run: the variant's consumer bugs and ablated rules. */
export function myAgentOptions(variant: Variant, capabilities: readonly string[]): ConsumerAppOptions {
  return {
    plantedBugs: variant.consumerBugs.filter(isConsumerBug),
    disabledRules: [...variant.disabledRules],
    capabilities: SUPPORTED.filter((c) => capabilities.includes(c)),
    resumeOnStart: true,
  };
}

export const myAgent: ConsumerUnderTest<CancelSignal> = {
  name: 'myagent',
  packageName: MY_AGENT_PACKAGE,
  install(world: World, { variant, capabilities }): void {
    world.install(
      consumerPackage({ packageName: MY_AGENT_PACKAGE, cert: 'myagent-release' }),
      consumerApp(myAgentOptions(variant, capabilities)),
    );
  },
  agent: (context: AppContext) => bridgeIn(context),
};
