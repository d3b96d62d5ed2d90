/**
 * Regressions found by the device faults of issue 35 (`fuzz --device-faults`,
 * docs/notes/fidelity-campaigns.md).
 */
import { describe, expect, it } from 'vitest';
import { replayRegression } from './regressions/replay.ts';

describe('device faults (issue 35)', () => {
  it('a resume sent in time but delivered after a 20 min deep sleep, its token expired meanwhile: the INVALID_REQUEST is not counted as misuse', async () => {
    // fuzz --android 14 --device-faults --runs 800 --seed 36, property consumer: the oracle judged
    // lateness by the send time and failed the reference pair (agent-not-refused-as-misuse).
    const run = await replayRegression('consumer', 'consumer-asleep-resume.replay.json');
    const slept = run.world.trace
      .ofKind('fault')
      .filter((e) => (e.data.fault as { kind: string }).kind === 'deepSleep');
    expect(slept).toHaveLength(1);
    const refused = run.observation.calls.filter(
      (c) => c.resumeToken !== null && c.reply.kind === 'bundle' && c.reply.errorCode === 'INVALID_REQUEST',
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});
