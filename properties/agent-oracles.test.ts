/**
 * The oracles over what a consumer did for its agent (src/check/checkers/agent.ts), judged from the
 * world's record of the agent's requests and the wire: the reference consumer passes; a consumer
 * that hands the agent provider text as its own words fails agent-gets-data, and one that re-sends
 * under a new request_id while logging the old one fails consumer-request-id-on-wire.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../src/base/json.ts';
import { ALL_CHECKERS } from '../src/check/checkers/index.ts';
import {
  type AgentCommand,
  type ConsumerScenario,
  type ConsumerUnderTest,
  REFERENCE_CONSUMER,
  runConsumerScenario,
} from '../src/fuzz/scenario/consumer.ts';
import { ALERTS } from '../src/fuzz/scenario/fixtures.ts';
import type { Variant } from '../src/fuzz/scenario/model.ts';
import { HOSTILE_CASES } from '../src/providers/hostile/index.ts';
import { replayRegression } from './regressions/replay.ts';

const reference: Variant = { providerBugs: [], consumerBugs: [], disabledRules: [] };

function scenario(hostileCase: string | null, threads: AgentCommand[][]): ConsumerScenario {
  const hostile = hostileCase === null ? null : HOSTILE_CASES.findIndex((c) => c.id === hostileCase);
  return {
    seed: 1,
    tail: 'fifo',
    threads,
    consumerRestartsAtMs: [],
    hostile,
    consumerCaps: 0,
    user: ['approve', 'approve', 'approve'],
    faults: [],
    decisions: [],
  };
}

const lookup: AgentCommand = {
  kind: 'execute',
  provider: 'hostile',
  tool: 'lookup',
  args: 0,
  cancelAfterMs: null,
};

/** Unwraps every `trust: "untrusted"` wrapper into its bare text or value: provider text as the consumer's own. */
function unwrap(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrap);
  if (value === null || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  if (o.trust === 'untrusted') return 'text' in o ? o.text : JSON.stringify(o.value as JsonValue);
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, unwrap(v)]));
}

/** A realistic slip: the consumer flattens what the provider said into plain strings for the agent. */
const PROMOTING: ConsumerUnderTest = {
  ...REFERENCE_CONSUMER,
  agent(context) {
    const api = REFERENCE_CONSUMER.agent(context);
    return {
      listTools: async () => unwrap(await api.listTools()),
      cancellation: () => api.cancellation(),
      executeJson: async (p, t, a, o) => unwrap(await api.executeJson(p, t, a, o)),
    };
  },
};

async function firing(
  consumer: ConsumerUnderTest,
  s: ConsumerScenario,
  variant = reference,
): Promise<string[]> {
  const run = await runConsumerScenario(
    { providers: [ALERTS], checkers: ALL_CHECKERS, consumer },
    s,
    variant,
  );
  return [...new Set(run.violations.map((v) => v.checker))];
}

describe('agent-gets-data (CETP-4.2-04, 4.2-05, 7.3-03)', () => {
  for (const id of ['injection-in-error-message', 'injection-in-inline-result']) {
    it(`${id}: the reference consumer passes; a consumer promoting provider text fails`, async () => {
      const threads = [[{ kind: 'list' } as AgentCommand, lookup]];
      expect(await firing(REFERENCE_CONSUMER, scenario(id, threads))).not.toContain('agent-gets-data');
      expect(await firing(PROMOTING, scenario(id, threads))).toContain('agent-gets-data');
    });
  }
});

describe('consumer-request-id-on-wire (CETP-4.1-04, 4.1-16, 6-08)', () => {
  const quote: AgentCommand = {
    kind: 'execute',
    provider: 'alerts',
    tool: 'get_quote',
    args: 0,
    cancelAfterMs: null,
  };
  it('the reference consumer passes with retries after a retryable error; a consumer re-sending under a new request_id fails', async () => {
    const s = scenario('overlong-error-message', [[lookup, quote]]);
    expect(await firing(REFERENCE_CONSUMER, s)).not.toContain('consumer-request-id-on-wire');
    // The planted bug re-sends under a fresh request_id: the wire shows it, whatever the log says.
    const buggy = { ...reference, consumerBugs: ['consumer-new-request-id-on-retry'] } as Variant;
    expect(await firing(REFERENCE_CONSUMER, s, buggy)).toContain('consumer-request-id-on-wire');
  });
});

describe('consumer-request-id-on-wire across a consumer restart (regression, fuzz --time 60 seed 0)', () => {
  it('a journaled execution first sent by the next process, under its journaled id, is not a new id', async () => {
    const run = await replayRegression('consumer', 'consumer-journal-resume.replay.json');
    // The run still reaches the case: an agent request whose process died before it sent anything,
    // and a request_id of that tool first on the wire from a later process of the same app.
    const transfer = run.observation.agentCalls.filter((a) => a.tool === 'transfer');
    const died = transfer.filter((a) => a.endStep === null);
    expect(died.length).toBeGreaterThan(0);
    const sent = run.observation.calls.filter(
      (c) => c.method === 'execute_tool' && c.toolName === 'transfer',
    );
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((c) => died.every((a) => c.callerPid !== a.pid))).toBe(true);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  }, 60_000);
});
