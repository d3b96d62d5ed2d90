/**
 * Found runs (issue #14, false alarm 1): a read tool whose answer legitimately changes between calls
 * was judged as if reads were de-duplicated. The repo's own example `--provider` module
 * (src/cli/testdata/my-alerts.provider.ts: the reference alerts app) failed same-terminal-result in
 * the operations, large-results and malformed properties at 200 runs (seeds 1 and 2): `list_alerts`
 * sent twice under one request_id listed the alerts before and after a create_alert committed.
 * Only a tool whose effect is not read is de-duplicated by request_id (CETP-6-01); CETP-6-05 and
 * 6-07 ("the same terminal result") are about those records. A read re-sent under an old id is a new
 * read.
 */
import { describe, expect, it } from 'vitest';
import { loadProviderModule, withProviders } from '../src/cli/provider-module.ts';
import { replayScenario } from '../src/fuzz/fuzz.ts';
import { executeCommand, REFERENCE, type Scenario } from '../src/fuzz/scenario/model.ts';
import { type PropertyDef, propertyById } from '../src/fuzz/suites.ts';

/** operations, seed 1, run 137 (shrunk): b lists its alerts twice under one request_id around a create. */
const OPERATIONS: Scenario = {
  seed: 465599,
  tail: 'pct',
  actors: {
    a: [{ kind: 'wait', ms: 500 }],
    b: [
      executeCommand('myalerts.create_alert', { rid: { kind: 'other', index: 0 }, duplicates: 2 }),
      executeCommand('myalerts.list_alerts', { duplicates: 1 }),
      { kind: 'poll', other: false },
    ],
  },
  user: [],
  faults: [],
  decisions: [],
};

/** malformed, seed 1, run 85 (shrunk): a and b each create, then list under a shared request_id. */
const MALFORMED: Scenario = {
  seed: 669453,
  tail: 'pct',
  actors: Object.fromEntries(
    ['a', 'b'].map((actor) => [
      actor,
      [
        executeCommand('myalerts.create_alert'),
        executeCommand('myalerts.list_alerts', { rid: { kind: 'shared', index: 0 }, duplicates: 2 }),
      ],
    ]),
  ) as Scenario['actors'],
  user: [],
  faults: [],
  decisions: [],
};

describe('reads are not requests: a changing read is not a changed terminal result (CETP-6-01, 6-05, 6-07)', () => {
  it.each([
    ['operations', OPERATIONS],
    ['malformed', MALFORMED],
  ])('%s: the example module my-alerts passes the found run', async (property, scenario) => {
    const module = await loadProviderModule('src/cli/testdata/my-alerts.provider.ts', process.cwd());
    const def = withProviders(propertyById(property) as PropertyDef, module);
    const run = await replayScenario(def, { scenario, variant: REFERENCE });
    // The run still shows what the old oracle took for a breach: one read request_id, two answers.
    const reads = run.observation.calls.filter(
      (c) => c.toolName === 'list_alerts' && c.reply.kind === 'bundle' && c.reply.status === 'success',
    );
    const answersByRequest = new Map<string, Set<string>>();
    for (const c of reads) {
      const data = c.reply.kind === 'bundle' ? JSON.stringify(c.reply.data) : '';
      answersByRequest.set(c.requestKey, (answersByRequest.get(c.requestKey) ?? new Set()).add(data));
    }
    expect([...answersByRequest.values()].some((answers) => answers.size > 1)).toBe(true);
    expect(run.violations.map((v) => `${v.checker}: ${v.message}`)).toEqual([]);
  });
});
