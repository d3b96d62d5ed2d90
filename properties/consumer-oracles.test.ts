/**
 * The consumer follow-up and agent-content oracles (src/check/checkers/consumer-followup.ts,
 * agent-content.ts) can fail: each is run on one fixed consumer scenario twice — against the
 * reference consumer, where it is silent, and against the reference with exactly the enforcement
 * point it guards switched off (a consumer broken in that one place), where it fires. The scenarios
 * are the generator's own moves: an agent execution (or listing) meeting a hostile case first, or a
 * confirmation on the reference apps.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentCommand,
  type ConsumerScenario,
  type ConsumerUnderTest,
  REFERENCE_CONSUMER,
  runConsumerScenario,
} from '../src/fuzz/scenario/consumer.ts';
import { propertyById } from '../src/fuzz/suites.ts';
import { HOSTILE_CASES } from '../src/providers/hostile/index.ts';
import { replayRegression } from './regressions/replay.ts';

function scenario(hostileCase: string | null, commands: readonly AgentCommand[]): ConsumerScenario {
  const hostile = hostileCase === null ? null : HOSTILE_CASES.findIndex((c) => c.id === hostileCase);
  if (hostile === -1) throw new Error(`no hostile case ${hostileCase}`);
  return {
    seed: 7,
    tail: 'fifo',
    threads: [commands],
    consumerRestartsAtMs: [],
    hostile,
    consumerCaps: 0,
    user: ['approve', 'approve'],
    faults: [],
    decisions: [],
  };
}

const lookup = (cancelAfterMs: number | null = null): AgentCommand => ({
  kind: 'execute',
  provider: 'hostile',
  tool: 'lookup',
  args: 0,
  cancelAfterMs,
});

async function checkersFired(
  property: string,
  s: ConsumerScenario,
  disabledRules: string[],
  consumer?: ConsumerUnderTest,
): Promise<string[]> {
  const def = propertyById(property);
  if (def?.kind !== 'consumer') throw new Error(`no consumer property ${property}`);
  const fixture = consumer ? { ...def.fixture, consumer } : def.fixture;
  const run = await runConsumerScenario(fixture, s, {
    providerBugs: [],
    consumerBugs: [],
    disabledRules,
  });
  return [...new Set(run.violations.map((v) => v.checker))];
}

/** Two quotes a second apart; alerts is killed between them, so the second needs a new negotiation. */
const RENEGOTIATE: ConsumerScenario = {
  ...scenario(null, [
    { kind: 'execute', provider: 'alerts', tool: 'get_quote', args: 0, cancelAfterMs: null },
    { kind: 'wait', ms: 1_000 },
    { kind: 'execute', provider: 'alerts', tool: 'get_quote', args: 1, cancelAfterMs: null },
  ]),
  faults: [{ at: 50, fault: { kind: 'kill', process: 'com.example.alerts' } }],
};

const CASES: readonly {
  readonly checker: string;
  readonly rule: string;
  readonly property: string;
  readonly scenario: ConsumerScenario;
}[] = [
  {
    checker: 'consumer-queries-after-deadline',
    rule: 'CETP-5-19',
    property: 'hostile',
    scenario: scenario('deadline-exceeded-first-answer', [lookup()]),
  },
  {
    checker: 'consumer-no-loop-without-user',
    rule: 'CETP-5-28',
    property: 'hostile',
    scenario: scenario('auth-required-claimed-retryable', [lookup()]),
  },
  {
    checker: 'agent-cancelled-only-when-cancelled',
    rule: 'CETP-4.4-11',
    property: 'hostile',
    scenario: scenario('cancel-requested-then-succeeds', [lookup(1_000)]),
  },
  {
    checker: 'agent-cancelled-only-when-cancelled',
    rule: 'CETP-4.4-19',
    property: 'hostile',
    scenario: scenario('cancel-requested-then-succeeds', [lookup(1_000)]),
  },
  {
    checker: 'consumer-discovery-verified',
    rule: 'CETP-2.1-04',
    property: 'hostile',
    scenario: scenario('version-field-lists-two', [lookup()]),
  },
  {
    checker: 'consumer-discovery-verified',
    rule: 'CETP-2.1-08',
    property: 'hostile',
    scenario: scenario('discovery-authority-of-other-package', [lookup()]),
  },
  {
    checker: 'agent-result-schema',
    rule: 'CETP-7.3-02',
    property: 'hostile',
    scenario: scenario('inline-result-off-schema', [lookup()]),
  },
  {
    checker: 'agent-result-schema',
    rule: 'CETP-4.2-04',
    property: 'hostile',
    scenario: scenario('inline-result-off-schema', [lookup()]),
  },
  {
    checker: 'agent-result-schema',
    rule: 'CETP-4.5-07',
    property: 'hostile',
    scenario: scenario('file-result-off-schema', [lookup()]),
  },
  {
    checker: 'agent-file-bounded',
    rule: 'CETP-4.5-08',
    property: 'hostile',
    scenario: scenario('file-over-local-limit', [lookup()]),
  },
  {
    checker: 'agent-text-bounded',
    rule: 'CETP-7.3-01',
    property: 'hostile',
    scenario: scenario('overlong-tool-description', [{ kind: 'list' }]),
  },
  {
    checker: 'consumer-rereads-catalogue',
    rule: 'CETP-3.3-05',
    property: 'consumer',
    scenario: RENEGOTIATE,
  },
  {
    checker: 'consumer-resumes-after-restart',
    rule: 'CETP-6-08',
    property: 'consumer',
    scenario: {
      ...scenario(null, [
        { kind: 'execute', provider: 'payments', tool: 'reconcile_accounts', args: 0, cancelAfterMs: null },
      ]),
      consumerRestartsAtMs: [1_000],
    },
  },
  {
    checker: 'consumer-waits-for-result',
    rule: 'CETP-4.3-12',
    property: 'consumer',
    scenario: scenario(null, [
      { kind: 'execute', provider: 'alerts', tool: 'create_alert', args: 0, cancelAfterMs: null },
    ]),
  },
];

describe('consumer oracles: silent on the reference consumer, fire when the rule they guard is switched off', () => {
  for (const c of CASES) {
    it(`${c.checker} [${c.rule}] (${c.property}${c.scenario.hostile === null ? '' : `, ${HOSTILE_CASES[c.scenario.hostile]?.id}`})`, async () => {
      expect(await checkersFired(c.property, c.scenario, [])).toEqual([]);
      expect(await checkersFired(c.property, c.scenario, [c.rule])).toContain(c.checker);
    });
  }
});

/** The reference consumer with the display-name finding put back: a tool's name built from provider text. */
const DISPLAY_NAME_FROM_PROVIDER_TEXT: ConsumerUnderTest = {
  ...REFERENCE_CONSUMER,
  agent(context) {
    const agent = REFERENCE_CONSUMER.agent(context);
    return {
      ...agent,
      listTools: async () => {
        const tools = (await agent.listTools()) as { displayName: string; description: { text: string } }[];
        return tools.map((t) => ({ ...t, displayName: `${t.description.text} › tool` }));
      },
    };
  },
};

describe('agent-gets-data judges tool listings too [CETP-4.2-04 CETP-4.2-05]', () => {
  it('silent on the reference; fires on a consumer whose display name carries provider text', async () => {
    const s = scenario('injection-in-tool-description', [{ kind: 'list' }]);
    expect(await checkersFired('hostile', s, [])).toEqual([]);
    expect(await checkersFired('hostile', s, [], DISPLAY_NAME_FROM_PROVIDER_TEXT)).toContain(
      'agent-gets-data',
    );
  });
});

describe('consumer-queries-after-deadline and a late answer (regression, fuzz --time 480 seed 53)', () => {
  it('CETP-5-19: a same-id re-send already in flight when DEADLINE_EXCEEDED arrives is the query', async () => {
    // The restarted consumer's call waited on a frozen provider; it stopped waiting and re-sent under
    // the same request_id, which learned the outcome. The first call's DEADLINE_EXCEEDED came after
    // that re-send was made, and the oracle wanted a query sent after it.
    const run = await replayRegression('consumer', 'consumer-deadline-late-answer.replay.json');
    const calls = run.observation.calls;
    const late = calls.filter(
      (c) =>
        c.reply.kind === 'bundle' &&
        c.reply.errorCode === 'DEADLINE_EXCEEDED' &&
        calls.some(
          (n) => n.requestId === c.requestId && n.step > c.step && n.step < (c.replyStep ?? Number.NaN),
        ),
    );
    expect(late.length).toBeGreaterThan(0);
    expect(run.violations.map((v) => v.checker)).toEqual([]);
  });
});
