/**
 * From a generated consumer's description (generate.ts) to a `ConsumerUnderTest`, as a user would
 * write one with the public API (like examples/scratch-agent/agent.consumer.ts): the agent of
 * ./agent/ with the description's policy and a conduct — CORRECT, or a mistake's transform of it.
 */
import type { ConsumerUnderTest } from '../../index.ts';
import { agentIn, zooAgentApp, zooAgentPackage } from './agent/app.ts';
import type { Cancellation } from './agent/cancellation.ts';
import { CORRECT, type Conduct } from './agent/conduct.ts';
import type { Policy } from './agent/policy.ts';
import type { ConsumerSpec } from './generate.ts';

export function policyOf(spec: ConsumerSpec, conduct: Conduct = CORRECT): Policy {
  return { ...spec, conduct };
}

export function buildConsumer(
  spec: ConsumerSpec,
  change: (conduct: Conduct) => Conduct = (c) => c,
): ConsumerUnderTest<Cancellation> {
  const policy = policyOf(spec, change(CORRECT));
  return {
    name: `zooagent${spec.index}`,
    packageName: spec.packageName,
    install(world, { capabilities }) {
      world.install(zooAgentPackage(policy), zooAgentApp(policy, capabilities));
    },
    agent: (context) => agentIn(context),
  };
}
