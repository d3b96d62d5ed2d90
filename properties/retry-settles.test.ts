/**
 * A retry may be the send that starts an operation; the settle phase must poll it too.
 *
 * Found when operations-terminate started judging every raw-driver property (campaign seed 1,
 * idempotency, run 279): an agent's reconcile_accounts was answered AUTH_REQUIRED, the user granted
 * the scope, the provider was killed under the resume, the resume came back NEGOTIATION_REQUIRED, and
 * the agent's later `retry` of the same request was answered `accepted`. The driver remembered
 * operations only from execute commands, so nobody polled this one and it was reported as never
 * reaching a terminal state — a false report of the test bed's own driver, not of the provider.
 */
import { describe, expect, it } from 'vitest';
import { replayScenario } from '../src/fuzz/fuzz.ts';
import { executeCommand, REFERENCE, type Scenario } from '../src/fuzz/scenario/model.ts';
import { type PropertyDef, propertyById } from '../src/fuzz/suites.ts';

const FOUND: Scenario = {
  seed: 0,
  tail: 'fifo',
  actors: {
    a: [
      executeCommand('payments.reconcile_accounts'),
      { kind: 'retry', index: 0, afterMs: 0 },
      executeCommand('alerts.create_alert'),
    ],
    b: [executeCommand('alerts.create_alert', { rid: { kind: 'other', index: 0 }, resolve: 'none' })],
  },
  user: [],
  faults: [
    { at: 47, fault: { kind: 'kill', process: 'com.example.payments' } },
    { at: 32, fault: { kind: 'loseReply', callee: 'com.example.payments' } },
  ],
  decisions: [],
};

describe('an operation started by a retry', () => {
  it('is polled to its end by the settle phase, so the reference passes the found run', async () => {
    const def = propertyById('idempotency') as PropertyDef;
    const run = await replayScenario(def, { scenario: FOUND, variant: REFERENCE });
    const accepted = run.observation.calls.filter(
      (c) => c.method === 'execute_tool' && c.reply.kind === 'bundle' && c.reply.status === 'accepted',
    );
    expect(accepted.length).toBeGreaterThan(0);
    for (const a of accepted) {
      const operationId = (a.reply.kind === 'bundle' ? (a.reply.data as { operation_id: string }) : null)
        ?.operation_id;
      const polled = run.observation.calls.some(
        (c) => c.method === 'get_operation' && c.operationId === operationId && c.provider === a.provider,
      );
      expect(polled, `operation ${operationId} was polled`).toBe(true);
    }
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});
