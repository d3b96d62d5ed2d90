/**
 * The oracles that close gaps of the wire-field table can fail: each is run on a provider (or a
 * client standing for a consumer) that breaks exactly what it judges, and on one that does not.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../base/json.ts';
import { HOSTILE_CASES } from '../../providers/hostile/cases.ts';
import { HOSTILE_PACKAGE } from '../../providers/hostile/manifest.ts';
import { honestTool } from '../../providers/hostile/payloads.ts';
import { runHostile } from '../../providers/hostile/testing.ts';
import { AGENT } from '../../providers/testing.ts';
import type { Checker } from '../checker.ts';
import { observe } from '../observation.ts';
import { checkContext } from '../testing.ts';
import {
  catalogueRevision,
  consumerRequestsWellFormed,
  providerIdentity,
  resolutionPendingIntent,
} from './fields.ts';

const CTX = checkContext({
  providersUnderTest: [HOSTILE_PACKAGE],
  consumers: [AGENT],
  hostile: [HOSTILE_PACKAGE],
});

function behaviourOf(id: string) {
  const found = HOSTILE_CASES.find((c) => c.id === id);
  if (!found) throw new Error(`no hostile case ${id}`);
  return found.behaviour;
}

function judge(checker: Checker, run: Awaited<ReturnType<typeof runHostile>>): string[] {
  return checker.check(observe(run.world, run.report), CTX).map((v) => v.message);
}

describe('resolution-pending-intent (CETP-4.3-02, 7.2-04, 7.2-05)', () => {
  it.each([
    ['resolution-mutable-pending-intent', /is mutable/],
    ['resolution-implicit-pending-intent', /is not explicit/],
    ['resolution-relayed-pending-intent', /was created by uid \d+, not the provider's/],
  ])('%s fails', async (id, message) => {
    const run = await runHostile(behaviourOf(id), async (c) => {
      await c.negotiate();
      await c.execute('lookup', { query: 'x' });
    });
    expect(judge(resolutionPendingIntent, run)).toEqual([expect.stringMatching(message)]);
  });
});

describe('provider-identity (CETP-3.1-01, 3.1-02)', () => {
  it('fails a provider_id in another package’s namespace, passes the honest one', async () => {
    const lying = await runHostile(behaviourOf('provider-id-outside-namespace'), (c) =>
      c.negotiate().then(() => {}),
    );
    expect(judge(providerIdentity, lying)).toEqual([expect.stringMatching(/outside package/)]);
    const honest = await runHostile({}, (c) => c.negotiate().then(() => {}));
    expect(judge(providerIdentity, honest)).toEqual([]);
  });
});

describe('catalogue-revision (CETP-3.3-03)', () => {
  it('fails a catalogue that changes under the same revision, passes one that does not', async () => {
    const behaviour: { tools: JsonValue[] } = { tools: [honestTool()] };
    const changed = await runHostile(behaviour, async (c) => {
      await c.negotiate();
      await c.method('list_tools');
      behaviour.tools = [
        honestTool(),
        { ...(honestTool() as Record<string, JsonValue>), name: 'lookup_more' },
      ];
      await c.method('list_tools');
    });
    expect(judge(catalogueRevision, changed)).toEqual([expect.stringMatching(/listed different tools/)]);
    const same = await runHostile({}, async (c) => {
      await c.negotiate();
      await c.method('list_tools');
      await c.method('list_tools');
    });
    expect(judge(catalogueRevision, same)).toEqual([]);
  });
});

describe('consumer-requests-well-formed (CETP-4.1-01 … 4.1-10)', () => {
  it('fails a consumer request without deadline and one with a session never issued; passes well-formed ones', async () => {
    const run = await runHostile({}, async (c) => {
      await c.negotiate();
      await c.method('list_tools'); // well-formed
      await c.method('list_tools', (b) => b.remove('deadline_at_ms'));
      await c.method('list_tools', (b) => b.putString('session_token', 'made-up'));
    });
    expect(judge(consumerRequestsWellFormed, run)).toEqual([
      expect.stringMatching(/deadline_at_ms is missing/),
      expect.stringMatching(/session_token was never issued/),
    ]);
  });
});
