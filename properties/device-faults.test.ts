/**
 * Regressions found by the device faults of issue 35 (`fuzz --device-faults`,
 * docs/notes/fidelity-campaigns.md).
 */
import { describe, expect, it } from 'vitest';
import { replayRegression } from './regressions/replay.ts';

describe('device faults (issue 35)', () => {
  it('a grant resume sent in time but delivered after a 20 min deep sleep (token expired in flight) is refused, and the consumer is told it misused the protocol: a spec finding', async () => {
    // fuzz --android 14 --device-faults --runs 800 --seed 36, property consumer, run 198. CETP-4.3-06
    // says an expired resume token is rejected (the vector conf-token-expired holds the reference to
    // it), so the reference provider refuses it (INVALID_REQUEST) although the resume was sent in time;
    // agent-not-refused-as-misuse then fails the reference pair. Accepting the expired grant token
    // (tried once) broke conf-token-expired. Recorded as a finding in docs/notes/fidelity-campaigns.md.
    const run = await replayRegression('consumer', 'consumer-asleep-resume.replay.json');
    const slept = run.world.trace
      .ofKind('fault')
      .filter((e) => (e.data.fault as { kind: string }).kind === 'deepSleep');
    expect(slept).toHaveLength(1);
    const resumes = run.observation.calls.filter((c) => c.resumeToken !== null);
    expect(
      resumes.filter((c) => c.reply.kind === 'bundle' && c.reply.errorCode === 'INVALID_REQUEST').length,
    ).toBeGreaterThan(0);
    expect(run.violations.map((v) => v.checker)).toContain('agent-not-refused-as-misuse');
  });
});
