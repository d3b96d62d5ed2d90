/**
 * Regressions found by the device faults of issue 35 (`fuzz --device-faults`,
 * docs/notes/fidelity-campaigns.md).
 */
import { describe, expect, it } from 'vitest';
import { replayRegression } from './regressions/replay.ts';

describe('device faults (issue 35)', () => {
  it('a grant resume sent in time but delivered after a 20 min deep sleep (token expired in flight) is served, not refused as misuse', async () => {
    // fuzz --android 14 --device-faults --runs 800 --seed 36, property consumer, run 198: the reference
    // provider refused the expired grant token as a stray resume (INVALID_REQUEST) although the grant
    // it had asked for was in place; agent-not-refused-as-misuse failed the reference pair.
    const run = await replayRegression('consumer', 'consumer-asleep-resume.replay.json');
    const slept = run.world.trace
      .ofKind('fault')
      .filter((e) => (e.data.fault as { kind: string }).kind === 'deepSleep');
    expect(slept).toHaveLength(1);
    const resumes = run.observation.calls.filter((c) => c.resumeToken !== null);
    expect(resumes.length).toBeGreaterThan(0);
    expect(
      resumes.filter((c) => c.reply.kind === 'bundle' && c.reply.errorCode === 'INVALID_REQUEST'),
    ).toEqual([]);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});
