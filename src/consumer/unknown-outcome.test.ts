/**
 * Finding spec/findings/consumer-unknown-outcome-not-unavailable.md: once a send of a write may have
 * reached the provider (its reply never came), the reference consumer never tells its agent that the
 * request did not happen. Retries spent on retryable errors end outcome_unknown (fixed in a6872a3), and
 * so does the path that remained: the provider's tool list, re-read after NEGOTIATION_REQUIRED, no
 * longer names the tool — "tool not found" would invite a new request for a write that may be done
 * (4.1-15, 6-05, 6-08). A write refused before any send could land still gets tool_not_found.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../base/json.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import { ANDROID_RELEASES, type AndroidRelease } from '../sim/core/release.ts';
import { WRITE } from './gaps.testing.ts';
import * as kit from './testing.ts';

/** A provider whose tool list drops `write` once `gone()` says so; execute_tool answers by `script`. */
function world(
  script: (c: kit.ScriptedCall) => Bundle | null | undefined,
  gone: () => boolean,
  android: AndroidRelease,
) {
  const w = kit.consumerWorld({ providers: [], world: { android } });
  kit.installScripted(w, {
    get tools(): readonly JsonValue[] {
      return gone() ? [] : [WRITE];
    },
    revision: () => (gone() ? 'tools-2' : 'tools-1'),
    answer: (c) => (c.method === 'execute_tool' ? script(c) : undefined),
  });
  return w;
}

// Every release profile (src/sim/core/release.ts): the finding names the releases it holds on.
describe.each(ANDROID_RELEASES)(
  'Android %i: a write whose send may have landed is never reported as not having happened',
  (android) => {
    it('CETP-4.1-15 CETP-6-08: a lost reply, then NEGOTIATION_REQUIRED and a tool list without the tool: outcome_unknown, not tool_not_found', async () => {
      let sent = 0;
      const w = world(
        (c) => {
          sent = c.n;
          return c.n === 1 ? null : kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true });
        },
        () => sent >= 2,
        android,
      );
      const { value } = await kit.runConsumer(w, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value.kind).toBe('outcome_unknown');
    });

    it('a write refused before any send could land (NEGOTIATION_REQUIRED on the first send) still ends tool_not_found', async () => {
      let sent = 0;
      const w = world(
        (c) => {
          sent = c.n;
          return kit.errorReply(c.requestId, 'NEGOTIATION_REQUIRED', { retryable: true });
        },
        () => sent >= 1,
        android,
      );
      const { value } = await kit.runConsumer(w, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value.kind).toBe('tool_not_found');
    });

    it('CETP-4.1-15: retries spent on a retryable error after an unanswered send end outcome_unknown (the landed fix)', async () => {
      const w = world(
        (c) => (c.n === 1 ? null : kit.errorReply(c.requestId, 'UNAVAILABLE', { retryable: true })),
        () => false,
        android,
      );
      const { value } = await kit.runConsumer(w, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value.kind).toBe('outcome_unknown');
    });

    it('retries spent on a retryable error with every send answered: provider_unavailable (nothing can have happened)', async () => {
      const w = world(
        (c) => kit.errorReply(c.requestId, 'UNAVAILABLE', { retryable: true }),
        () => false,
        android,
      );
      const { value } = await kit.runConsumer(w, (b) => b.execute(kit.SCRIPTED_PACKAGE, 'write', {}));
      expect(value.kind).toBe('provider_unavailable');
    });
  },
);

void kit.success;
