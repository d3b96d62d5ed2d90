/**
 * The oracle over what a success result holds (§4.2, §4.4, §4.5): every value a provider under test
 * hands back as a tool's result — an inline `value`, the bytes behind a file result's `result_fd`,
 * the result of a succeeded operation — conforms to that tool's output_schema. The provider must
 * validate its own output (CETP-4.2-03) so that a backend that drifts from the published contract
 * never reaches the consumer as a success.
 *
 * The schema is the one the provider publishes: the fixture's (resolved from list_tools,
 * src/check/fixture.ts), else any list_tools answer of that provider on the run's wire. A file
 * result is judged from the bytes as the world recorded them (files.ts), parsed as JSON; bytes that
 * are not known yet (a writer still open, a file changed after the reply) are not judged, and bytes
 * that are not JSON are judged by the file oracles, not here. A value is validated with the same
 * Draft 2020-12 compiler the SDK and the consumer use (src/protocol/tool-schema.ts).
 */
import { caches } from '../../base/caches.ts';
import { ToolSchemaCompiler, type ToolValueValidator } from '../../protocol/index.ts';
import type { FileResultRecord } from '../../sim/ground-truth.ts';
import type { CheckContext, Checker } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { type BundleReplyView, type CallView, type Observation, succeeded } from '../observation.ts';
import { alteredPaths, bytesBehind } from './files.ts';

const compiler = caches.lazy('check/outputs: output schema compiler', () => new ToolSchemaCompiler());
const validators = caches.weakMap<object, ToolValueValidator | null>(
  'check/outputs: output validators by schema',
);

function validatorOf(schema: unknown): ToolValueValidator | null {
  if (typeof schema !== 'object' || schema === null) return null;
  let validate = validators.get(schema);
  if (validate === undefined) {
    const compiled = compiler.get().compile(schema, 'output');
    validate = compiled.ok ? compiled.value : null;
    validators.set(schema, validate);
  }
  return validate;
}

/** Output schemas the run's list_tools answers published, by `provider|tool` (first answer wins). */
function publishedSchemas(obs: Observation): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const c of obs.calls) {
    if (!succeeded(c, 'list_tools')) continue;
    const tools = (c.reply.data as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools)) continue;
    for (const t of tools) {
      if (typeof t !== 'object' || t === null) continue;
      const { name, output_schema } = t as { name?: unknown; output_schema?: unknown };
      const key = `${c.provider}|${String(name)}`;
      if (typeof name === 'string' && output_schema !== undefined && !out.has(key))
        out.set(key, output_schema);
    }
  }
  return out;
}

/** The tool each operation runs, by `provider|operation_id`, from the accepted replies that started it. */
function operationTools(obs: Observation): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of obs.calls) {
    if (c.method !== 'execute_tool' || c.toolName === null) continue;
    for (const r of [c.reply, c.lostAnswer]) {
      if (r?.kind !== 'bundle' || r.status !== 'accepted') continue;
      const id = (r.data as { operation_id?: unknown } | undefined)?.operation_id;
      if (typeof id === 'string') out.set(`${c.provider}|${id}`, c.toolName);
    }
  }
  return out;
}

/** The result envelope (`{kind, value}` or `{kind:"file", …}`) a success reply carries, if any. */
function resultOf(call: CallView, reply: BundleReplyView): unknown {
  const data = reply.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null) return undefined;
  if (call.method === 'execute_tool') return data;
  if (call.method === 'get_operation' && data.state === 'succeeded') return data.result;
  return undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true });
/**
 * Verdicts on file contents by the world's byte record and validator (a file result is often judged
 * run after run). Only the verdict is kept, never the parsed value: a statement is megabytes of
 * objects, and a campaign holds many observations at once.
 */
const fileVerdicts = caches.weakMap<Uint8Array, Map<ToolValueValidator, string | null | undefined>>(
  'check/outputs: file result verdicts',
);

/** The first issue of `bytes` (JSON) against `validate`: null when it conforms, undefined when not JSON. */
function fileVerdict(bytes: Uint8Array, validate: ToolValueValidator): string | null | undefined {
  let byValidator = fileVerdicts.get(bytes);
  if (!byValidator) {
    byValidator = new Map();
    fileVerdicts.set(bytes, byValidator);
  }
  if (byValidator.has(validate)) return byValidator.get(validate);
  const verdict = textVerdict(bytes, validate);
  byValidator.set(validate, verdict);
  return verdict;
}

/**
 * The same verdicts by the file's text: each run writes its file results into fresh byte arrays, but
 * the documents recur run after run (a fixture's statement, a hostile provider's lying document), and
 * parsing and validating one costs far more than decoding it. Bounded to a few texts.
 */
const textVerdicts = caches.map<string, Map<ToolValueValidator, string | null | undefined>>(
  'check/outputs: file result verdicts by text',
  8,
);

function textVerdict(bytes: Uint8Array, validate: ToolValueValidator): string | null | undefined {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return undefined;
  }
  let byValidator = textVerdicts.get(text);
  if (byValidator?.has(validate)) return byValidator.get(validate);
  let verdict: string | null | undefined;
  try {
    verdict = describeIssues(validate(JSON.parse(text)));
  } catch {
    verdict = undefined;
  }
  if (!byValidator) {
    byValidator = new Map();
    textVerdicts.set(text, byValidator);
  }
  byValidator.set(validate, verdict);
  return verdict;
}

function describeIssues(issues: readonly { path?: string; message: string }[]): string | null {
  const first = issues[0];
  return first ? ` at ${first.path || '/'}: ${first.message}` : null;
}

export const outputSchema = judgeRun({
  id: 'output-schema',
  ruleIds: ['CETP-4.2-03', 'CETP-4.2-02', 'CETP-4.4-05'],
  description:
    "Every success result of a provider under test (inline value, the bytes behind a file result, a succeeded operation's result) conforms to the tool's published output_schema.",
  fields: [
    consistency(
      "the tool's published output_schema (fixture or list_tools), and a file result's bytes",
      'json:execution_result/value',
      'json:operation_status/result/value',
      'json:list_tools_response/tools[]/output_schema',
    ),
  ],
  *judge(obs: Observation, ctx: CheckContext) {
    let wire: Map<string, unknown> | null = null;
    let operations: Map<string, string> | null = null;
    let byTarget: Map<string, FileResultRecord> | null = null;
    let altered: Set<string> | null = null;
    for (const call of obs.calls) {
      if (call.method !== 'execute_tool' && call.method !== 'get_operation') continue;
      if (!call.v2 || !ctx.providersUnderTest.includes(call.provider)) continue;
      for (const reply of [call.reply, call.lostAnswer]) {
        if (reply?.kind !== 'bundle' || reply.status !== 'success') continue;
        const result = resultOf(call, reply) as { kind?: unknown; value?: unknown } | undefined;
        if (typeof result !== 'object' || result === null) continue;
        let tool = call.toolName;
        if (call.method === 'get_operation') {
          operations ??= operationTools(obs);
          tool = operations.get(call.operationKey) ?? null;
        }
        if (tool === null) continue;
        const key = `${call.provider}|${tool}`;
        let schema = ctx.toolOutputSchemas?.get(key);
        if (schema === undefined) {
          wire ??= publishedSchemas(obs);
          schema = wire.get(key);
        }
        const validate = validatorOf(schema);
        if (!validate) continue;
        let issue: string | null | undefined;
        let where: string;
        if (result.kind === 'inline') {
          issue = describeIssues(validate(result.value));
          where = 'inline value';
        } else if (result.kind === 'file') {
          byTarget ??= new Map(obs.record.truth.fileResults.map((r) => [r.target, r]));
          altered ??= alteredPaths(obs);
          const { bytes } = bytesBehind(reply, byTarget, altered);
          if (bytes === null) continue;
          issue = fileVerdict(bytes, validate);
          where = 'file result';
        } else continue;
        if (issue === null || issue === undefined) continue;
        yield {
          message: `${call.method} ${tool} (${call.caller} → ${call.provider}): the ${where} breaks the tool's output_schema${issue}`,
          calls: [call.id],
        };
      }
    }
  },
});

export const OUTPUT_CHECKERS: readonly Checker[] = [outputSchema];
