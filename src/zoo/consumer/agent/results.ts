/**
 * A success's result, as the agent will get it: an inline value checked against the tool's
 * output_schema (7.3-02, 4.2-04), or a verified file (files.ts). Either way it is handed on only as
 * an UntrustedValue (7.3-03).
 */
import type { AppContext, Bundle, JsonValue, protocol } from '../../../index.ts';
import { type Answer, answer, ok, type Source } from './answers.ts';
import type { Tool } from './catalogue.ts';
import type { Conduct } from './conduct.ts';
import { readFileResult } from './files.ts';

export async function resultAnswer(
  context: AppContext,
  source: Source,
  tool: Tool,
  result: protocol.ExecutionResult,
  bundle: Bundle,
  conduct: Conduct,
): Promise<Answer> {
  if (result.kind === 'inline') {
    const value = result.value as JsonValue;
    if (conduct.checksOutput() && tool.validateOutput(value).length > 0)
      return answer(source, 'integrity', { detail: 'output_schema' });
    return ok(source, 'inline', value);
  }
  const read = await readFileResult(context, bundle, result, tool, conduct);
  return read.ok ? ok(source, 'file', read.value) : answer(source, 'integrity', { detail: read.why });
}
