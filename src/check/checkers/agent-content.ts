/**
 * Oracles over the content a consumer hands its agent, judged from the world's record of what the
 * agent got (GroundTruth.agentCalls) against what the provider published on the wire:
 * - agent-result-schema (4.5-07, 7.3-02, 4.2-04): a success value the agent receives — inline or
 *   read from a file — conforms to the output_schema the provider listed for that tool;
 * - agent-text-bounded (7.3-01): no provider text outside a result value reaches the agent longer
 *   than TEXT_CHARS_MAX (names, titles, descriptions, error and progress messages);
 * - agent-file-bounded (4.5-08): no file result the agent receives is larger than
 *   FILE_RESULT_BYTES_MAX — the consumer reads files under a local limit.
 * The spec names no number for 7.3-01 or 4.5-08: the bounds below are the ones a careful consumer
 * keeps (the reference's own caps are below them), so a consumer over them has no effective limit.
 */

import { caches } from '../../base/caches.ts';
import type { JsonValue } from '../../base/json.ts';
import { ToolSchemaCompiler, utf8Length } from '../../protocol/index.ts';
import type { AgentCallRecord } from '../../sim/ground-truth.ts';
import type { Checker } from '../checker.ts';
import { consistency, judgeEach, source } from '../checker-kit.ts';
import { type Observation, succeeded } from '../observation.ts';
import { field } from './consumer-view.ts';

/** Longest provider text (UTF-16 units) an agent may be handed outside a result value (7.3-01). */
export const TEXT_CHARS_MAX = 4096;
/** Largest file result (bytes of its JSON) an agent may be handed (4.5-08): 16 MiB. */
export const FILE_RESULT_BYTES_MAX = 16 * 1_048_576;

const compiler = caches.lazy('check/agent-content: output schema compiler', () => new ToolSchemaCompiler());

/** Agent answers of the consumers under test (a `kind` of the given ones), with what they got. */
function answers(
  obs: Observation,
  consumers: readonly string[],
  kind: 'execute' | 'list',
): AgentCallRecord[] {
  return obs.agentCalls.filter(
    (a) => a.kind === kind && consumers.includes(a.consumer) && a.endStep !== null && a.value !== undefined,
  );
}

/** The answered executions of the consumers under test, with what the agent got. */
const EXECUTION_ANSWERS = source((obs, ctx) => answers(obs, ctx.consumers, 'execute'));
/** The answered executions, then the answered listings. */
const ALL_ANSWERS = source((obs, ctx) => [
  ...answers(obs, ctx.consumers, 'execute'),
  ...answers(obs, ctx.consumers, 'list'),
]);

/** The output_schema `provider` last listed for `tool` to `consumer` before `step` (undefined: none). */
function listedOutputSchema(
  obs: Observation,
  consumer: string,
  provider: string,
  tool: string,
  step: number,
): JsonValue | undefined {
  let schema: JsonValue | undefined;
  for (const c of obs.calls) {
    if (c.caller !== consumer || c.provider !== provider || c.method !== 'list_tools' || !c.v2) continue;
    if (!succeeded(c) || (c.replyStep ?? step + 1) > step) continue;
    const tools = field(c.reply.data, 'tools');
    if (!Array.isArray(tools)) continue;
    const listed = tools.find((t) => field(t, 'name') === tool);
    schema = field(listed, 'output_schema');
  }
  return schema;
}

export const agentResultSchema = judgeEach(EXECUTION_ANSWERS, {
  id: 'agent-result-schema',
  ruleIds: ['CETP-4.5-07', 'CETP-7.3-02', 'CETP-4.2-04'],
  description:
    'A success value the agent receives (inline or from a file) conforms to the output_schema its provider listed for the tool.',
  fields: [
    consistency(
      'what the agent receives as a result (consumer side)',
      'json:list_tools_response/tools[]/output_schema',
      'json:execution_result/value',
      'json:operation_status/result/value',
    ),
  ],
  judge(a, obs) {
    if (field(a.value, 'kind') !== 'ok' || a.provider === null || a.tool === null) return;
    const untrusted = field(a.value, 'untrusted');
    const value = field(untrusted, 'value');
    if (value === undefined) return;
    const schema = listedOutputSchema(obs, a.consumer, a.provider, a.tool, a.endStep ?? 0);
    if (schema === undefined) return; // v1, or never listed on the wire: nothing to judge against
    const compiled = compiler.get().compile(schema, 'output');
    if (!compiled.ok) return; // an unusable schema: the tool must not be offered (descriptor oracles)
    const issues = compiled.value(value);
    if (issues.length === 0) return;
    return `${a.consumer} handed its agent a ${String(field(untrusted, 'transport'))} result of ${a.tool} on ${a.provider} that its output_schema forbids (${issues
      .slice(0, 2)
      .map((i) => `${i.path || '/'}: ${i.code}`)
      .join('; ')})`;
  },
});

/** Strings of an agent's answer outside result values and input schemas, with their JSON path. */
function textStrings(value: JsonValue | undefined, path: string, out: [string, string][]): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) textStrings(value[i], `${path}/${i}`, out);
  } else if (value !== null && typeof value === 'object') {
    // A result value (UntrustedValue): bounded by the file and inline limits, judged apart.
    if (value.trust === 'untrusted' && 'value' in value) return;
    for (const [k, v] of Object.entries(value)) {
      // Schemas are structured data under the schema caps (7.3-01 via DEFAULT_TOOL_SCHEMA_CAPS).
      if (k === 'inputSchema') continue;
      textStrings(v, `${path}/${k}`, out);
    }
  }
}

export const agentTextBounded = judgeEach(ALL_ANSWERS, {
  id: 'agent-text-bounded',
  ruleIds: ['CETP-7.3-01'],
  description: `No provider text outside a result value (names, titles, descriptions, error and progress messages) reaches the agent longer than ${TEXT_CHARS_MAX} characters.`,
  fields: [
    consistency(
      'the length of what reaches the agent (consumer side)',
      'res:error:error_message',
      'json:list_tools_response/tools[]/description',
      'json:list_tools_response/tools[]/title',
      'json:provider_info/provider_name',
      'json:provider_info/description',
      'json:negotiate_response/provider_name',
    ),
  ],
  judge(a) {
    const strings: [string, string][] = [];
    textStrings(a.value, '', strings);
    const long = strings.find(([, s]) => s.length > TEXT_CHARS_MAX);
    if (long)
      return `${a.consumer} handed its agent ${long[1].length} characters of text at ${long[0] || '/'} (${a.kind} ${a.tool ?? ''} ${a.provider ?? ''})`;
  },
});

export const agentFileBounded = judgeEach(EXECUTION_ANSWERS, {
  id: 'agent-file-bounded',
  ruleIds: ['CETP-4.5-08'],
  description: `No file result the agent receives is larger than ${FILE_RESULT_BYTES_MAX} bytes: the consumer reads files under a local limit.`,
  // No wire field: it judges how much of a file the consumer read and handed on, not a declaration.
  judge(a) {
    const untrusted = field(a.value, 'untrusted');
    if (field(a.value, 'kind') !== 'ok' || field(untrusted, 'transport') !== 'file') return;
    const bytes = utf8Length(JSON.stringify(field(untrusted, 'value') ?? null));
    if (bytes > FILE_RESULT_BYTES_MAX)
      return `${a.consumer} handed its agent a file result of ${bytes} bytes from ${a.tool} on ${a.provider} (over ${FILE_RESULT_BYTES_MAX})`;
  },
});

export const AGENT_CONTENT_CHECKERS: readonly Checker[] = [
  agentResultSchema,
  agentTextBounded,
  agentFileBounded,
];
