/**
 * The scratch agent as an installable app: its package (a manifest whose `<queries>` names the
 * TOOL_PROVIDER action — without it, package visibility hides every provider) and its app factory.
 * Each process start builds a fresh agent (only the journal in durable storage survives a kill)
 * and resumes the journal's open executions.
 */
import { type App, type AppContext, certificate, type PackageSpec, protocol } from '../../src/index.ts';
import { ScratchAgent } from './agent.ts';

export const SCRATCH_PACKAGE = 'com.example.scratchagent';

/** What this app implements of the optional capabilities (2.3-02). */
export const SUPPORTED = ['async_operations', 'cancellation', 'large_results'];

export function scratchPackage(): PackageSpec {
  return {
    manifest: {
      packageName: SCRATCH_PACKAGE,
      targetSdk: 34,
      queries: { intents: [{ action: protocol.TOOL_PROVIDER_ACTION }] },
    },
    signing: { signers: [certificate('scratchagent-release')] },
  };
}

export interface ScratchApp extends App {
  readonly agent: ScratchAgent;
}

export function scratchApp(capabilities: readonly string[]): (context: AppContext) => ScratchApp {
  return (context) => {
    const agent = new ScratchAgent(context, capabilities);
    return {
      agent,
      onCreate: () => {
        context.spawn('scratch-resume', async () => {
          await agent.resumeJournal();
        });
      },
    };
  };
}

/** The agent of the process `context` belongs to. */
export function agentIn(context: AppContext): ScratchAgent {
  const app = context.process.app as Partial<ScratchApp> | null;
  if (!app?.agent) throw new Error(`${context.packageName} is not the scratch agent`);
  return app.agent;
}
