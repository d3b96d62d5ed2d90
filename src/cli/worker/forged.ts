/**
 * The judge's verdict when what the module's worker handed over contradicts itself: a run it
 * reported passing (or never reported) that its record shows failing, a record or scenario missing
 * or not the seed's. Every judge (judge.ts, judge-scenarios.ts, judge-crashpoints.ts,
 * judge-replay.ts, judge-vectors.ts) words it through this one home.
 */
import type { Violation } from '../../check/checker.ts';

/** The verdict on a run the worker reported passing (or never reported) that its record shows failing. */
export const MODULE_FORGES_VERDICT = 'module-forges-verdict';

/** That verdict, saying what was forged: no rule of the spec, no evidence events or calls. */
export function forgedVerdict(message: string): Violation {
  return {
    checker: MODULE_FORGES_VERDICT,
    ruleIds: [],
    class: 'correctness',
    message,
    events: [],
    calls: [],
  };
}
