/**
 * Oracles over what a consumer under test did for its agent, judged from the world's record — the
 * agent's requests and what it finally got back (GroundTruth.agentCalls, recorded by the scenario
 * driver) and the request ids on the wire — never from the consumer's own audit log:
 * - consumer-request-id-on-wire: one logical execution (one agent request) puts one request_id on
 *   the wire, across retries and restarts; no request_id appears that no agent request asked for
 *   (in the process it was asked in, or — its process dead before the answer — in a later one);
 * - agent-gets-data: text a provider sent (descriptions, error messages, results, file bytes)
 *   reaches the agent, in the answer to a tool execution or listing, only inside an untrusted-data wrapper (an object with `trust: "untrusted"`,
 *   src/consumer/untrusted.ts), never as a plain string the agent could take for an instruction.
 */
import canonicalize from 'canonicalize';
import type { JsonValue } from '../../base/json.ts';
import type { AgentCallRecord } from '../../sim/ground-truth.ts';
import type { Checker } from '../checker.ts';
import { AGENT_EXECUTIONS, consistency, judgeEach, judgeRun } from '../checker-kit.ts';
import { maxMatching } from '../ground.ts';
import { type CallView, effectEvents } from '../observation.ts';
import { uidOf } from '../record.ts';
import { field, REQUEST_ID_RULES } from './consumer-view.ts';

/** Args as a canonical JSON text (so re-serialised args still match), or the raw text. */
function canonicalArgs(text: string | null): string | null {
  if (text === null) return null;
  try {
    return canonicalize(JSON.parse(text)) ?? text;
  } catch {
    return text;
  }
}

export const requestIdOnWire = judgeRun({
  id: 'consumer-request-id-on-wire',
  ruleIds: REQUEST_ID_RULES,
  description:
    "Each agent request puts at most one request_id on the wire (retries and restarts reuse it), and every request_id the consumer sends belongs to an agent request — judged from the wire and the agent's requests, not the consumer's log.",
  fields: [consistency("the agent's requests (consumer side)", 'req:*:request_id')],
  *judge(obs, ctx) {
    const asked = obs.agentCalls.filter((a) => a.kind === 'execute' && ctx.consumers.includes(a.consumer));
    if (asked.length === 0) return;
    // The first time each request_id went on the wire, per consumer and provider.
    const first = new Map<string, CallView>();
    for (const c of obs.calls) {
      if (c.method !== 'execute_tool' || c.requestId === null || !ctx.consumers.includes(c.caller)) continue;
      const key = `${c.caller}|${c.provider}|${c.requestId}`;
      if (!first.has(key)) first.set(key, c);
    }
    const ids = [...first.values()];
    const argsOf = new Map<AgentCallRecord, string | null>(asked.map((a) => [a, canonicalArgs(a.args)]));
    // A request_id first sent while its agent request was open in the same process — or, for an agent
    // request its process died before answering, first sent by a later process of the same app: a
    // journal resuming an execution it recorded but had not yet sent (6-08: restarts reuse the id).
    const during = (c: CallView, a: AgentCallRecord): boolean =>
      a.consumer === c.caller &&
      a.provider === c.provider &&
      a.tool === c.toolName &&
      a.step <= c.step &&
      (a.pid === c.callerPid ? a.endStep === null || c.step <= a.endStep : a.endStep === null) &&
      argsOf.get(a) === canonicalArgs(c.args);
    const match = maxMatching(ids.length, asked.length, (i, j) => {
      const c = ids[i];
      const a = asked[j];
      return !!c && !!a && during(c, a);
    });
    for (const [i, c] of ids.entries()) {
      if ((match[i] ?? -1) >= 0) continue;
      const owners = asked.filter((a) => during(c, a));
      const same = obs.calls.filter(
        (x) =>
          x.caller === c.caller && x.provider === c.provider && x.toolName === c.toolName && x.id !== c.id,
      );
      yield {
        message:
          owners.length > 0
            ? `${c.caller} sent a new request_id ${c.requestId} for ${c.toolName} within an agent request that already had one`
            : `${c.caller} sent request_id ${c.requestId} for ${c.toolName} that no agent request asked for (a retry under a new id?)`,
        calls: [c.id, ...same.filter((x) => x.step < c.step).map((x) => x.id)].slice(0, 8),
      };
    }
  },
});

/** Lines of provider text worth finding again: prose of at least 12 characters, whitespace inside. */
function proseLines(text: string, into: Set<string>): void {
  for (const line of text.split(/[\r\n]+/)) {
    const t = line.trim();
    if (t.length >= 12 && /\s/.test(t)) into.add(t);
  }
}

function stringsOf(value: JsonValue | undefined, into: Set<string>): void {
  if (typeof value === 'string') proseLines(value, into);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, into);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) stringsOf(v, into);
}

/**
 * Plain strings of an agent's answer outside any `trust: "untrusted"` wrapper, with their JSON path.
 * A listed tool's `inputSchema` is structured data the agent needs to call the tool (checked against
 * the schema caps, 7.3-01/7.3-02), not text: it is not judged here.
 */
function plainStrings(value: JsonValue | undefined, path: string, out: [string, string][]): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) plainStrings(value[i], `${path}/${i}`, out);
  } else if (value !== null && typeof value === 'object') {
    if (value.trust === 'untrusted') return;
    for (const [k, v] of Object.entries(value)) if (k !== 'inputSchema') plainStrings(v, `${path}/${k}`, out);
  }
}

const FILE_TEXT_BYTES = 256 * 1024;

export const agentGetsData = judgeRun({
  id: 'agent-gets-data',
  ruleIds: ['CETP-4.2-04', 'CETP-4.2-05', 'CETP-7.3-03', 'CETP-1-01'],
  description:
    "Provider text (names, titles, descriptions, error messages, results, file bytes) reaches the agent only inside an untrusted-data wrapper, never as a plain string of the consumer's answer to an execution or a tool listing.",
  fields: [
    consistency(
      'what reaches the agent: provider text only as untrusted data (consumer side)',
      'res:error:error_message',
      'json:execution_result/value',
      'json:list_tools_response/tools[]/description',
      'json:list_tools_response/tools[]/title',
      'json:provider_info/description',
      'json:provider_info/provider_name',
      'json:negotiate_response/provider_name',
    ),
  ],
  *judge(obs, ctx) {
    // Answers to tool executions and tool listings (display names, titles, descriptions).
    const answers = obs.agentCalls.filter((a) => ctx.consumers.includes(a.consumer) && a.value !== undefined);
    if (answers.length === 0) return;
    // Everything providers said to the consumers: reply strings and the bytes of file results.
    const said = new Set<string>();
    const sent = new Set<string>();
    for (const c of obs.calls) {
      if (!ctx.consumers.includes(c.caller)) continue;
      if (c.args !== null) proseLines(c.args, sent);
      if (c.reply.kind !== 'bundle') continue;
      for (const key of c.reply.bundle.keySet()) {
        const v = c.reply.bundle.getEntry(key);
        if (v?.type === 'String' && typeof v.value === 'string') {
          proseLines(v.value, said);
          if (key === 'data') stringsOf(c.reply.data, said);
        }
      }
    }
    const decoder = new TextDecoder();
    for (const f of obs.record.truth.fileResults)
      proseLines(decoder.decode(f.bytes.subarray(0, FILE_TEXT_BYTES)), said);
    // The agent's own words coming back are not the provider's.
    for (const s of sent) said.delete(s);
    for (const a of answers) for (const s of [a.args, a.tool, a.provider]) if (s) said.delete(s);
    if (said.size === 0) return;
    const lines = [...said];
    for (const a of answers) {
      const plain: [string, string][] = [];
      plainStrings(a.value, '', plain);
      const leak = plain.find(([, s]) => lines.some((l) => s.includes(l)));
      if (!leak) continue;
      const line = lines.find((l) => leak[1].includes(l)) ?? '';
      yield {
        message: `${a.consumer} handed its agent provider text as a plain string at ${leak[0] || '/'}: "${line.slice(0, 80)}"`,
        class: 'correctness',
      };
    }
  },
});

/**
 * An answer that says the provider could not be reached (`kind: "provider_unavailable"`) tells the
 * agent its request did not happen — it will ask again, under a new request. When a business effect
 * of that very request was committed (before the answer, or after it: an accepted operation), the
 * consumer had sent it and not learned the outcome: the only true answer was "unknown" (4.1-15,
 * 6-08), and a new request would duplicate the effect (6-05). Judged from the agent's answer and the world's effects, not the consumer's log.
 */
export const unavailableNotUnknown = judgeEach(AGENT_EXECUTIONS, {
  id: 'agent-unknown-not-unavailable',
  ruleIds: ['CETP-4.1-15', 'CETP-6-05', 'CETP-6-08'],
  description:
    'The agent is not told "provider unavailable" for a request whose business effect was already committed: an outcome the consumer did not learn is unknown, not "did not happen".',
  judge(a, obs) {
    if (field(a.value, 'kind') !== 'provider_unavailable') return;
    const requestId = field(a.value, 'requestId');
    if (typeof requestId !== 'string') return;
    const uid = uidOf(obs.record, a.consumer);
    // Committed at any time: a call of that request reached the provider, before or after the
    // answer (an accepted operation commits later) — "unavailable" was not what happened.
    const effects = obs.effects.filter(
      (e) => e.provider === a.provider && e.requestId === requestId && e.uid === uid,
    );
    if (effects.length === 0) return;
    return {
      message: `${a.consumer} told its agent the provider was unavailable for ${a.tool} on ${a.provider} (request ${requestId}), whose effect was committed`,
      events: effectEvents(...effects),
    };
  },
});

export const AGENT_CHECKERS: readonly Checker[] = [requestIdOnWire, agentGetsData, unavailableNotUnknown];
