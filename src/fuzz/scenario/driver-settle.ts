/**
 * The settle family of the raw protocol driver: after the faults, each actor polls every operation
 * it started until it ends, waking early when the provider notifies an operation's change.
 */

import { ALL_CAPS_JSON, DEFAULT_VERSIONS, type DriverCore } from './driver-session.ts';
import type { ProviderFixture } from './fixtures.ts';

/**
 * Observes the provider's operation URIs, as an Android client that does not want to poll blindly
 * does: the SDK notifies content://<authority>/operations/<id> when an operation ends, and
 * system_server delivers onChange to us oneway, on one of our Binder threads (pid 0, in order).
 * The settle phase then polls as soon as something changed instead of after its full pause.
 */
export function observe(d: DriverCore, p: ProviderFixture): void {
  if (d.observed.has(p.name)) return;
  d.observed.add(p.name);
  try {
    d.ctx.contentResolver.registerContentObserver(`content://${d.authorityOf(p)}/operations`, true, {
      onChange() {
        d.changed = true;
        d.changeWaiter?.wake(undefined);
      },
    });
  } catch {
    // Not resolvable or not permitted for this actor: it keeps polling.
  }
}

/** Waits `ms` of virtual time, or less if an operation change notification arrives. */
export async function pauseUnlessChanged(d: DriverCore, ms: number): Promise<void> {
  if (!d.changed) {
    const waiter = d.ctx.waiter<void>('operation change or poll pause');
    d.changeWaiter = waiter;
    await waiter.waitFor(ms);
    d.changeWaiter = null;
  }
  d.changed = false;
}

/** After the faults: poll every operation this actor started until it ends (bounded). */
export async function settle(d: DriverCore): Promise<void> {
  // Sessions are negotiated lazily, with every capability, only with providers holding an operation.
  d.capsJson = ALL_CAPS_JSON;
  d.versions = DEFAULT_VERSIONS;
  for (const op of d.state.ops) observe(d, d.provider(op.provider));
  for (const op of d.state.ops) {
    const p = d.provider(op.provider);
    let renegotiated = false;
    for (let i = 0; i < 30; i++) {
      const reply = await d.v2(
        p,
        'get_operation',
        (b) => b.putString('operation_id', op.operationId),
        op.rid,
      );
      const state = (JSON.parse(reply?.getString('data') ?? '{}') as { state?: string }).state;
      if (state === 'succeeded' || state === 'failed' || state === 'cancelled') break;
      const code = reply?.getString('error_code');
      if (code === 'RESULT_EXPIRED') break;
      if (code === 'INVALID_REQUEST') {
        // NOTES 8a: a provider may refuse a session token it does not hold for this caller as
        // INVALID_REQUEST rather than NEGOTIATION_REQUIRED; renegotiate once before giving up.
        if (renegotiated) break;
        renegotiated = true;
        await d.negotiate(p);
        continue;
      }
      if (code === 'UNSUPPORTED_CAPABILITY') await d.negotiate(p);
      await pauseUnlessChanged(d, 2_000);
    }
  }
}
