/**
 * The CLI's replay runner (the replay core is src/harness/replay-core.ts): a replay file's scenario
 * runs in a worker thread under the watchdog, with the user modules named on the command line loaded
 * there (jobs.ts), and is judged in the CLI's thread when it ran user code (judge-replay.ts). A run
 * that never finishes ends as a watchdog violation. `cetp-sim replay` and the fresh-instance re-run of
 * a failure found with user modules (user-modules.ts) both run through it.
 */

import { codeIdentity, type ReplayModules } from '../../harness/code-identity.ts';
import type { ReplayRunner } from '../../harness/replay-core.ts';
import type { TraceEvent } from '../../sim/core/trace.ts';
import { watchdogViolation } from '../failure-report.ts';
import { userCodeBundle } from './bundle.ts';
import { runJudgedReplay } from './judge-replay.ts';
import { hostFor } from './pool.ts';
import type { WorkerMessage } from './protocol.ts';

/**
 * Runs replays in a fresh worker with `modules` (the command line's, paths from `cwd`), each within
 * `budgetMs`; `stream`: the trace comes event by event (for the watchdog's report of a run that hangs).
 */
export function workerReplayRunner(
  modules: ReplayModules,
  budgetMs: number,
  cwd: string,
  stream = true,
): ReplayRunner {
  return {
    given: { provider: modules.provider !== undefined, consumer: modules.consumer !== undefined },
    howToPass(path, missing) {
      const flags = missing.map((m) => `--${m.kind} ${m.recorded}`);
      return `pass ${flags.length > 1 ? 'them' : 'it'} to re-run: npx cetp-sim replay ${path} ${flags.join(' ')}`;
    },
    async run(path, file) {
      const events: TraceEvent[] = [];
      const userCode = modules.provider !== undefined || modules.consumer !== undefined;
      if (userCode) await userCodeBundle(modules);
      const host = hostFor(userCode, 1);
      try {
        const job = {
          kind: 'replay',
          path,
          property: file.property,
          replay: file,
          modules,
          cwd,
          stream,
        } as const;
        const end = await runJudgedReplay(host, job, {
          budgetMs,
          onMessage: (m: WorkerMessage) => {
            if (m.type === 'event') events.push(m.event);
          },
        });
        if (end.kind === 'done') return { ...end.result, finished: true };
        return {
          violations: [watchdogViolation('the run', end.reason, events)],
          traceHash: '',
          events,
          finished: false,
        };
      } finally {
        await host.close();
      }
    },
    codeNow: () => codeIdentity(modules, cwd),
  };
}
