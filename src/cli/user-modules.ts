/**
 * Loading the user's modules for a command: in a worker thread under the watchdog (a module whose top
 * level never returns cannot hang the CLI), answering only what the CLI prints about them. The runs
 * load them again in their own workers; the CLI's own thread never runs user code.
 */

import { CliError } from './errors.ts';
import type { ReplayModules } from './replay-file.ts';
import { WorkerHost } from './worker/pool.ts';
import type { LoadOutcome } from './worker/protocol.ts';

export async function loadModules(
  modules: ReplayModules,
  cwd: string,
  watchdogMs: number,
): Promise<LoadOutcome> {
  if (modules.provider === undefined && modules.consumer === undefined) return {};
  const host = new WorkerHost();
  try {
    const end = await host.run<LoadOutcome>({ kind: 'load', modules, cwd }, { budgetMs: watchdogMs });
    if (end.kind === 'done') return end.result;
    throw new CliError('module_load_failed', `loading ${describe(modules)}: ${end.reason}`);
  } finally {
    await host.close();
  }
}

function describe(modules: ReplayModules): string {
  return [
    modules.provider !== undefined ? `--provider ${modules.provider}` : '',
    modules.consumer !== undefined ? `--consumer ${modules.consumer}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
}
