/**
 * A generated consumer as an installable app: its package (a manifest whose `<queries>` names the
 * TOOL_PROVIDER action — without it, package visibility hides every provider) and its app factory.
 * Each process start builds a fresh agent (only the journal in durable storage survives a kill)
 * and, unless a mistake says otherwise, resumes the journal's open executions.
 */
import { type App, type AppContext, certificate, type PackageSpec, protocol } from '../../../index.ts';
import { ZooAgent } from './agent.ts';
import type { Policy } from './policy.ts';

export function zooAgentPackage(policy: Policy): PackageSpec {
  return {
    manifest: {
      packageName: policy.packageName,
      targetSdk: 34,
      queries: { intents: [{ action: protocol.TOOL_PROVIDER_ACTION }] },
    },
    signing: { signers: [certificate(`${policy.packageName}-release`)] },
  };
}

export interface ZooAgentApp extends App {
  readonly agent: ZooAgent;
}

/** The app factory; `capabilities`: those the world supports (the policy's are offered only among them). */
export function zooAgentApp(
  policy: Policy,
  capabilities: readonly string[],
): (context: AppContext) => ZooAgentApp {
  const offered = { ...policy, capabilities: policy.capabilities.filter((c) => capabilities.includes(c)) };
  return (context) => {
    const agent = new ZooAgent(context, offered);
    return {
      agent,
      onCreate: () => {
        if (!policy.conduct.resumesOnStart()) return;
        context.spawn('zoo-agent-resume', async () => {
          await agent.resumeJournal();
        });
      },
    };
  };
}

/** The agent of the process `context` belongs to. */
export function agentIn(context: AppContext): ZooAgent {
  const app = context.process.app as Partial<ZooAgentApp> | null;
  if (!app?.agent) throw new Error(`${context.packageName} is not a zoo consumer`);
  return app.agent;
}
