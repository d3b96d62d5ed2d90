/**
 * The consumer against every hostile provider of src/providers/hostile (spec §7.3, §9 "恶意
 * Provider"): it lists, executes and renders for the agent, and must come out alive, with no fd of
 * its own leaked, no liveness failure, a typed outcome, an explanation of its own, and no provider
 * text promoted out of its untrusted wrapper. Case by case, the outcome the lie must lead to.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HostileBehaviour } from '../providers/hostile/index.ts';
import {
  HOSTILE_CASES,
  HOSTILE_PACKAGE,
  hostileBehaviourArb,
  INJECTION_MARKER,
  installHostile,
} from '../providers/hostile/index.ts';
import type { AgentTool } from './bridge.ts';
import { DEFAULT_CONSUMER_LIMITS } from './options.ts';
import { explain, type ToolOutcome } from './outcomes.ts';
import { CONSUMER, consumerCalls, consumerWorld, runConsumer } from './testing.ts';
import { renderForAgent } from './untrusted.ts';

/** What each named lie must end in (kind, and for some the detail). Unlisted cases: invariants only. */
const EXPECTED: Readonly<Record<string, Partial<Record<string, unknown>>>> = {
  // Over a MiB of metadata is refused whole (the consumer's cap on negotiate / list_tools data).
  'overlong-provider-name': { kind: 'provider_unavailable', temporary: false },
  'provider-name-just-over-cap': { kind: 'ok' },
  'overlong-tool-description': { kind: 'provider_unavailable', temporary: false },
  'tool-description-just-over-cap': { kind: 'ok' },
  'overlong-error-message': { kind: 'provider_unavailable', temporary: true },
  'error-message-just-over-cap': { kind: 'rejected', code: 'CONFLICT' },
  'injection-in-tool-description': { kind: 'ok' },
  'injection-in-provider-identity': { kind: 'ok' },
  'injection-in-error-message': { kind: 'rejected', code: 'INVALID_ARGS' },
  'injection-in-inline-result': { kind: 'ok' },
  'injection-in-file-result': { kind: 'ok' },
  'unknown-error-code-retryable': { kind: 'rejected', code: 'UNRECOGNIZED' },
  'sensitive-error-content': { kind: 'rejected', code: 'INTERNAL_ERROR', providerMessage: null },
  'invalid-json-in-list-tools': { kind: 'provider_unavailable', temporary: false },
  'invalid-json-in-result': { kind: 'invalid_response' },
  'protocol-version-as-long': { kind: 'invalid_response' },
  'retryable-as-string': { kind: 'rejected', code: 'UNAVAILABLE' },
  'request-id-mismatch': { kind: 'invalid_response' },
  'missing-annotation-effect': { kind: 'tool_not_found' },
  'missing-output-schema': { kind: 'tool_not_found' },
  'unknown-effect-enum': { kind: 'tool_not_found' },
  'inconsistent-annotations': { kind: 'tool_not_found' },
  'network-ref-schema': { kind: 'tool_not_found' },
  'network-id-schema': { kind: 'tool_not_found' },
  'huge-schema': { kind: 'tool_not_found' },
  'deep-schema': { kind: 'tool_not_found' },
  'provider-id-outside-namespace': { kind: 'provider_unavailable', temporary: false },
  'session-token-over-256-bytes': { kind: 'provider_unavailable', temporary: false },
  'capabilities-not-offered': { kind: 'provider_unavailable', temporary: false },
  'accepted-without-async': { kind: 'ok' },
  'negotiate-unsupported-version-with-v1-bait': { kind: 'provider_unavailable', temporary: false },
  'negotiate-internal-error-with-v1-bait': { kind: 'provider_unavailable', temporary: false },
  'discovery-authority-of-other-package': { kind: 'provider_unavailable', temporary: false },
  'file-size-wrong': { kind: 'integrity', check: 'size' },
  'file-sha256-wrong': { kind: 'integrity', check: 'sha256' },
  'file-sha256-uppercase': { kind: 'invalid_response' },
  'file-fd-writable': { kind: 'integrity', check: 'fd_not_read_only' },
  'file-pipe-never-eof': { kind: 'integrity', check: 'read_error' },
  'file-pipe-writer-dies': { kind: 'integrity', check: 'read_error' },
  'file-much-larger-than-declared': { kind: 'integrity', check: 'size' },
  'resolution-mutable-pending-intent': { kind: 'refused_resolution' },
  'resolution-implicit-pending-intent': { kind: 'refused_resolution' },
  'resolution-relayed-pending-intent': { kind: 'refused_resolution' },
  'oversized-reply': { kind: 'provider_unavailable', temporary: true },
  // The same-id query after DEADLINE_EXCEEDED reaches the result (5-19).
  'deadline-exceeded-first-answer': { kind: 'ok' },
  // The re-send after retry_after_ms (same request_id) gets the result (5-27).
  'rate-limited-first-answer': { kind: 'ok' },
  'auth-required-claimed-retryable': { kind: 'rejected', code: 'AUTH_REQUIRED' },
  'version-field-lists-two': { kind: 'provider_unavailable', temporary: false },
  'inline-result-off-schema': { kind: 'integrity', check: 'output_schema' },
  'cancel-requested-then-succeeds': { kind: 'ok' },
  'file-result-off-schema': { kind: 'integrity', check: 'output_schema' },
  'file-over-local-limit': { kind: 'integrity', check: 'over_local_limit' },
};

const L = DEFAULT_CONSUMER_LIMITS;

async function against(behaviour: HostileBehaviour) {
  const world = consumerWorld({
    providers: [],
    world: { user: { kind: 'scripted', decisions: ['approve', 'approve'] } },
  });
  installHostile(world, behaviour);
  const { value, report } = await runConsumer(world, async (b) => {
    const tools = await b.listTools();
    const outcome = await b.execute(HOSTILE_PACKAGE, 'lookup', { query: 'weather' });
    return { tools, outcome, rendered: outcome.kind === 'ok' ? renderForAgent(outcome.untrusted) : null };
  });
  return { ...value, report, world };
}

/** The invariants every hostile run must keep. */
function survived(r: Awaited<ReturnType<typeof against>>): void {
  const { report, world, outcome, tools, rendered } = r;
  expect(report.crashes.filter((c) => c.task.includes(CONSUMER))).toEqual([]);
  expect(world.allProcesses().find((p) => p.name === CONSUMER)?.state.kind).toBe('running');
  expect(report.fdLeaks.filter((l) => l.process === CONSUMER)).toEqual([]);
  expect(report.outcome.kind).toBe('completed');
  // The explanation is the consumer's own, never the provider's words.
  if (outcome.kind !== 'ok') expect(outcome.explanation).toBe(explain(outcome));
  expect(outcome.explanation).not.toContain(INJECTION_MARKER);
  checkText(outcome, tools);
  if (rendered !== null) {
    // The injected "</tool_result>" cannot close the data block: only the block's own end is there.
    expect(rendered.split('</tool_result>')).toHaveLength(2);
    expect(rendered.endsWith('</tool_result>')).toBe(true);
  }
}

/** Every provider string the agent can see is clipped UntrustedText (7.3-01). */
function checkText(outcome: ToolOutcome, tools: readonly AgentTool[]): void {
  for (const t of tools) {
    expect(t.title.trust).toBe('untrusted');
    expect(t.title.text.length).toBeLessThanOrEqual(L.maxTitleChars);
    expect(t.description.text.length).toBeLessThanOrEqual(L.maxDescriptionChars);
    expect(t.displayName.length).toBeLessThanOrEqual(2 * L.maxTitleChars + 3);
  }
  if (outcome.kind === 'rejected' && outcome.providerMessage) {
    expect(outcome.providerMessage.text.length).toBeLessThanOrEqual(L.maxMessageChars);
  }
}

describe('every hostile case', () => {
  for (const hostile of HOSTILE_CASES) {
    it(`${hostile.id} [${hostile.ruleIds.join(' ')}]: survived, typed, nothing promoted`, async () => {
      const r = await against(hostile.behaviour);
      survived(r);
      const expected = EXPECTED[hostile.id];
      if (expected) expect(r.outcome).toMatchObject(expected);
    });
  }

  it("CETP-7.3-01 CETP-4.2-04: a tool's display name carries no provider text, only identifiers the consumer checked", async () => {
    const hostile = HOSTILE_CASES.find((c) => c.id === 'injection-in-provider-identity');
    const { tools } = await against(hostile?.behaviour ?? {});
    expect(tools.length).toBeGreaterThan(0);
    for (const t of tools) {
      expect(t.displayName).not.toContain('SYSTEM');
      expect(t.displayName).not.toContain('Bank');
      expect(t.displayName).toBe(`${t.providerId} › ${t.name}`);
    }
  });

  it('CETP-5-26: the unknown retryable error code is sent once, never retried', async () => {
    const hostile = HOSTILE_CASES.find((c) => c.id === 'unknown-error-code-retryable');
    const r = await against(hostile?.behaviour ?? {});
    expect(consumerCalls(r.world, HOSTILE_PACKAGE).filter((c) => c.method === 'execute_tool')).toHaveLength(
      1,
    );
  });
});

describe('generated hostile behaviours', () => {
  it('CETP-7.3-01 CETP-7.3-02 CETP-4.5-09: any combination of lies leaves the consumer alive, leak-free and in control', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBehaviourArb, async (behaviour) => {
        survived(await against(behaviour));
      }),
      { numRuns: 25, seed: 4 },
    );
  });
});
