/**
 * consumer-uses-current-catalogue (CETP-3.3-04, CETP-3.3-05): a consumer may cache a tool list for an
 * unchanged revision (3.3-04), and it must check the revision after every new negotiation (3.3-05) —
 * so when the revision it read names other tools, what it executes and what it offers its agent
 * follow that list, not a cached one. Judged from the wire and from what the consumer handed its
 * agent, never from the consumer's own cache:
 * - the first execute_tool of a request_id sent in a v2 session must name a tool that some list_tools
 *   answer of that session received before it named (a consumer that read the new revision and kept
 *   its old catalogue executes a tool the provider no longer lists; a same-id re-send is a follow-up
 *   of the first send, not a new use of the catalogue);
 * - a listing the agent got must not offer, for a provider, a tool that the latest list_tools answer
 *   the consumer received from that provider before the listing ended did not name.
 * Sessions without an answered list_tools are consumer-rereads-catalogue's (3.3-05) to judge; v1
 * calls carry no session and no revision, and are not judged here.
 */
import type { JsonValue } from '../../base/json.ts';
import { type Checker, type Violation, violation } from '../checker.ts';
import { consistency } from '../checker-kit.ts';
import { type CallView, type Observation, succeeded } from '../observation.ts';
import { field } from './consumer-view.ts';

/** The tool names of a successful list_tools answer the caller received, or null. */
function listedTools(c: CallView): Set<string> | null {
  if (!c.v2 || !succeeded(c, 'list_tools')) return null;
  const tools = field(c.reply.data, 'tools');
  if (!Array.isArray(tools)) return null;
  const names = tools.map((t) => field(t, 'name')).filter((n): n is string => typeof n === 'string');
  return new Set(names);
}

interface Listing {
  readonly call: CallView;
  readonly tools: Set<string>;
  /** The step its answer reached the consumer. */
  readonly at: number;
}

/** Every list_tools answer each consumer received, in the order received. */
function listings(obs: Observation, consumers: readonly string[]): Listing[] {
  const out: Listing[] = [];
  for (const c of obs.calls) {
    if (!consumers.includes(c.caller) || c.replyStep === null) continue;
    const tools = listedTools(c);
    if (tools) out.push({ call: c, tools, at: c.replyStep });
  }
  return out.sort((a, b) => a.at - b.at || a.call.id - b.call.id);
}

/**
 * The answers of `all` that `match` accepts that the consumer may have acted on for something it
 * did over [from, to]: the latest received before `from`, and every one received by `to` (threads
 * that read a list while another acts are not told apart: only a tool none of them named is stale).
 */
function actedOn(
  all: readonly Listing[],
  from: number,
  to: number,
  match: (l: Listing) => boolean,
): Listing[] {
  const mine = all.filter(match);
  const before = mine.filter((l) => l.at < from).at(-1);
  return [...(before ? [before] : []), ...mine.filter((l) => l.at >= from && l.at <= to)];
}

const revisionOf = (l: Listing): string => {
  const revision = field(l.call.reply.kind === 'bundle' ? l.call.reply.data : undefined, 'revision');
  return typeof revision === 'string' ? revision : '?';
};

function staleExecutions(
  obs: Observation,
  consumers: readonly string[],
  all: readonly Listing[],
): Violation[] {
  const out: Violation[] = [];
  const sent = new Set<string>();
  for (const c of obs.calls) {
    if (!consumers.includes(c.caller) || c.method !== 'execute_tool' || !c.v2) continue;
    if (c.sessionToken === null || c.toolName === null) continue;
    // A re-send of a request_id already sent is the follow-up of an earlier send (the same-id
    // query of 4.1-15, 6-08), decided under the catalogue of then: only first sends are judged.
    const first = !sent.has(c.requestKey);
    sent.add(c.requestKey);
    if (!first) continue;
    const same = (l: Listing) =>
      l.call.caller === c.caller && l.call.provider === c.provider && l.call.sessionToken === c.sessionToken;
    // Every answer of this session the consumer had before sending: a tool none of them named.
    const read = actedOn(all, c.step, c.step - 1, same);
    if (read.length === 0 || read.some((l) => l.tools.has(c.toolName as string))) continue;
    out.push(
      violation(
        usesCurrentCatalogue,
        `${c.caller} executed ${c.toolName} on ${c.provider} in a session whose list_tools answers (revision ${read.map(revisionOf).join(', ')}) did not list it: a catalogue cached for another revision`,
        { calls: [...read.map((l) => l.call.id), c.id] },
      ),
    );
  }
  return out;
}

/** The `(provider, tool)` pairs a listing the agent got offers, as `providerId`/`name` entries. */
function offered(value: JsonValue | undefined): { provider: string; tool: string }[] {
  if (!Array.isArray(value)) return [];
  const out: { provider: string; tool: string }[] = [];
  for (const entry of value) {
    const [provider, tool] = [field(entry, 'providerId'), field(entry, 'name')];
    if (typeof provider === 'string' && typeof tool === 'string') out.push({ provider, tool });
  }
  return out;
}

function staleListings(obs: Observation, consumers: readonly string[], all: readonly Listing[]): Violation[] {
  const out: Violation[] = [];
  for (const a of obs.agentCalls) {
    if (a.kind !== 'list' || !consumers.includes(a.consumer) || a.endStep === null) continue;
    const end = a.endStep;
    for (const { provider, tool } of offered(a.value)) {
      const read = actedOn(
        all,
        a.step,
        end,
        (l) => l.call.caller === a.consumer && l.call.provider === provider,
      );
      if (read.length === 0 || read.some((l) => l.tools.has(tool))) continue;
      out.push(
        violation(
          usesCurrentCatalogue,
          `${a.consumer} offered its agent ${tool} of ${provider}, which no list_tools answer it could have listed from (revision ${read.map(revisionOf).join(', ')}) named`,
          { calls: read.map((l) => l.call.id) },
        ),
      );
      break;
    }
  }
  return out;
}

export const usesCurrentCatalogue: Checker = {
  id: 'consumer-uses-current-catalogue',
  ruleIds: ['CETP-3.3-04', 'CETP-3.3-05'],
  description:
    'What the consumer executes in a session, and the tools it offers its agent, follow the latest list_tools answer it received: a catalogue cached for another revision is not used.',
  fields: [
    consistency(
      'the latest list_tools answer of the session the consumer executes in, and its agent listings (consumer side)',
      'json:list_tools_response/revision',
      'json:list_tools_response/tools',
      'req:execute_tool:tool_name',
    ),
  ],
  check(obs, ctx) {
    const all = listings(obs, ctx.consumers);
    if (all.length === 0) return [];
    return [...staleExecutions(obs, ctx.consumers, all), ...staleListings(obs, ctx.consumers, all)];
  },
};
