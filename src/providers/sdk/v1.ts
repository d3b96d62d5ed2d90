/**
 * The v1 path of a dual-stack provider (spec §8, 4-09, NOTES 9). The spec does not define v1's wire;
 * cetp-sim assumes (spec/interpretations.md): `list_tools` answers `data = {"tools":[{name,
 * description, input_schema}]}`; `execute_tool` takes `tool_name` and `args` and answers `data` = the
 * result JSON; errors are `status="error"`, `error_code`, `error_message`. Only read tools that need
 * no scope are listed or executed (2.1-06, 8-04, 8-10): v1 carries no session, scopes, confirmation
 * or de-duplication, so anything else would bypass v2's rules.
 */
import type { JsonValue } from '../../base/json.ts';
import { requestKeyOf } from '../../protocol/index.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import type { CompiledTool } from './catalogue.ts';
import type { Runtime } from './runtime.ts';
import { type CallerIdentity, isReadTool, ToolFailure } from './types.ts';

/** v1 carries no request_id. */
const NO_REQUEST = requestKeyOf('');

/** A v1 error reply (the wire cetp-sim assumes for v1; the legacy reference app answers with it too). */
export function v1Error(code: string, message: string): Bundle {
  const b = new Bundle();
  b.putString('status', 'error');
  b.putString('error_code', code);
  b.putString('error_message', message);
  return b;
}

/** A v1 success reply: `data` is the result's JSON. */
export function v1Success(data: JsonValue): Bundle {
  const b = new Bundle();
  b.putString('status', 'success');
  b.putString('data', JSON.stringify(data));
  return b;
}

/** The reference: a v1 caller may see and run only read tools that need no scope (2.1-06, 8-10). */
export function v1Tools(rt: Runtime): CompiledTool[] {
  const all = [...rt.catalogue.tools.values()];
  if (!rt.gates.on('CETP-2.1-06', 'CETP-8-10')) return all;
  return all.filter((c) => isReadTool(c.tool) && c.tool.scopes.length === 0);
}

export async function handleV1(
  rt: Runtime,
  caller: CallerIdentity,
  method: string,
  extras: Bundle,
): Promise<Bundle> {
  if (method === 'list_tools') {
    return v1Success({
      tools: rt.parts.v1Tools(rt).map((c) => ({
        name: c.tool.name,
        description: c.tool.description,
        input_schema: c.tool.inputSchema,
      })),
    });
  }
  if (method !== 'execute_tool') return v1Error('METHOD_NOT_FOUND', 'Unknown method.');
  const name = extras.getString('tool_name') ?? '';
  const compiled = rt.parts.v1Tools(rt).find((c) => c.tool.name === name);
  if (!compiled) return v1Error('TOOL_NOT_FOUND', 'No such tool.');
  let args: JsonValue;
  try {
    args = JSON.parse(extras.getString('args') ?? 'null') as JsonValue;
  } catch {
    return v1Error('INVALID_ARGS', 'The arguments are not valid JSON.');
  }
  if (compiled.validateInput(args).length > 0)
    return v1Error('INVALID_ARGS', 'The arguments do not match the schema.');
  const tool = compiled.tool;
  try {
    if (isReadTool(tool)) {
      return v1Success(
        await tool.read({ caller, requestId: '', requestKey: NO_REQUEST, args, context: rt.context }),
      );
    }
    // Only reachable with the v1 rules switched off: a write through v1, with no confirmation or dedup.
    const value = await rt.context.storage.transaction(`v1 ${tool.name}`, (tx) =>
      tool.mutate({ caller, requestId: '', requestKey: NO_REQUEST, args, context: rt.context }, tx, null),
    );
    return v1Success(value);
  } catch (error) {
    if (error instanceof ToolFailure) return v1Error(error.code, error.safeMessage);
    return v1Error('INTERNAL_ERROR', 'Internal error.');
  }
}
