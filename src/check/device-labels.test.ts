import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../sim/core/trace.ts';
import { DEVICE_LABELS, deviceLabels } from './device-labels.ts';

const event = (kind: string, data: Record<string, unknown>): TraceEvent =>
  ({ seq: 0, step: 0, t: 0, kind, data }) as unknown as TraceEvent;

describe('device labels (issue 35): read from the trace', () => {
  it('each behaviour gives its label, and nothing else does', () => {
    const cases: [TraceEvent, string][] = [
      [event('fault', { fault: { kind: 'deepSleep', ms: 1 } }), 'device:deep-sleep'],
      [event('binder.failed', { reason: 'callee frozen (BR_FROZEN_REPLY)' }), 'device:frozen-reply'],
      [
        event('process.kill', { cause: 'killed: depends on provider p in dying proc' }),
        'device:dependency-kill',
      ],
      [
        event('binder.oneway', { method: 'scheduleTransaction(LaunchActivityItem C)' }),
        'device:launch-queued',
      ],
      [event('activity.launch.failed', {}), 'device:launch-too-large'],
      [event('user.away', { ms: 1 }), 'device:user-away'],
      [event('activity.relaunch', {}), 'device:activity-restored'],
      [event('device.reboot', { bootMs: 40_000 }), 'device:slow-boot'],
      [event('anr', { reason: 'Input dispatching timed out' }), 'device:input-anr'],
      [event('store.lost', { commits: 1 }), 'device:wal-lost'],
      [
        event('log', { message: 'FATAL EXCEPTION: t: Failure from system: TransactionTooLargeException: …' }),
        'device:result-too-large',
      ],
    ];
    for (const [e, label] of cases) expect([...deviceLabels([e])]).toEqual([label]);
    expect(new Set(cases.map(([, l]) => l))).toEqual(new Set(DEVICE_LABELS));
    const unrelated = [
      event('fault', { fault: { kind: 'clockJump', ms: 1 } }),
      event('binder.failed', { reason: 'fault: failed transaction' }),
      event('process.kill', { cause: 'killed (fault)' }),
      event('binder.oneway', { method: 'onChange' }),
    ];
    expect([...deviceLabels(unrelated)]).toEqual([]);
  });
});
