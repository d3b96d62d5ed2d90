/**
 * A consumer that leaves its providers unusable — no call of a campaign completes — is a failure,
 * not a quiet pass: its calls are tallied under `consumer|@consumer` and the campaign verdict
 * (tool-never-succeeds, src/fuzz/fuzz.ts) names it once it made enough calls in vain.
 */
import { describe, expect, it } from 'vitest';
import { runHostile } from '../providers/hostile/testing.ts';
import { AGENT } from '../providers/testing.ts';
import { CONSUMER_KEY, ExerciseTally, exercisedIn } from './exercised.ts';
import { observe } from './observation.ts';
import { checkContext } from './testing.ts';

const CTX = checkContext({ consumers: [AGENT] });

async function tallyOf(body: Parameters<typeof runHostile>[1]) {
  const run = await runHostile({}, body);
  const tally = new ExerciseTally();
  tally.add(exercisedIn(observe(run.world, run.report), CTX, true));
  return tally.neverSucceeded(10).map((b) => b.tool);
}

describe('a consumer none of whose calls completes', () => {
  it('is named by the campaign verdict', async () => {
    // Never negotiates: every list_tools is NEGOTIATION_REQUIRED.
    const broken = await tallyOf(async (c) => {
      for (let i = 0; i < 12; i++) await c.method('list_tools');
    });
    expect(broken).toEqual([`${AGENT}|${CONSUMER_KEY}`]);
  });

  it('is not, once one call completes', async () => {
    const working = await tallyOf(async (c) => {
      await c.negotiate();
      for (let i = 0; i < 12; i++) await c.method('list_tools', (b) => b.remove('session_token'));
    });
    expect(working).toEqual([]);
  });
});
