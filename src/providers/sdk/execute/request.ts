/**
 * The first steps of execute_tool (spec §4, §3.3, §5): `tool` — TOOL_NOT_FOUND for unknown and
 * hidden tools (5-12, 7.2-01); `args` — size (4.1-08), JSON, input schema (5-14, 10-10), the app's
 * business validation (7.3-04) and the args digest (6-03); `key` — the request record's dedup key
 * (6-02) from the calling UID, provider_id and the envelope's RequestKey.
 */

import { caches } from '../../../base/caches.ts';
import type { JsonValue } from '../../../base/json.ts';
import {
  argsDigest,
  isJsonText,
  LONG_JSON_TEXT,
  type ProtocolIssue,
  type ToolValueValidator,
  utf8Length,
} from '../../../protocol/index.ts';
import { type CompiledTool, visibleTo } from '../catalogue.ts';
import { REQUESTS, type RequestRecord } from '../records.ts';
import { WireFailure } from '../responses.ts';
import { isReadTool } from '../types.ts';
import { go, refuse, toolOf, withExecution } from './support.ts';
import type { Execution, Next } from './types.ts';

export function findTool(ex: Execution): Next | Promise<Next> {
  const { rt } = ex;
  const compiled = rt.catalogue.tools.get(ex.req.toolName);
  if (!compiled) return refuse(ex, new WireFailure('TOOL_NOT_FOUND'));
  // A hidden tool is one the caller cannot know exists (5-12, 7.2-01).
  const visible = visibleTo(compiled.tool, ex.caller, rt.context, rt.gates);
  return visible instanceof Promise
    ? visible.then((v) => foundIfVisible(ex, compiled, v))
    : foundIfVisible(ex, compiled, visible);
}

function foundIfVisible(ex: Execution, compiled: CompiledTool, visible: boolean): Next {
  return visible ? go(withExecution(ex, { compiled })) : refuse(ex, new WireFailure('TOOL_NOT_FOUND'));
}

/**
 * NOTES 14, `hiddenTool: 'scope_error'`: a tool the caller cannot see is still found; the
 * authorization step then answers AUTH_REQUIRED or PERMISSION_DENIED (3.4-15) for the scope it lacks.
 */
export function findToolSeenOrNot(ex: Execution): Next {
  const compiled = ex.rt.catalogue.tools.get(ex.req.toolName);
  if (!compiled) return refuse(ex, new WireFailure('TOOL_NOT_FOUND'));
  return go(withExecution(ex, { compiled }));
}

export function checkArgs(ex: Execution): Next | Promise<Next> {
  const { rt, req, session } = ex;
  const { gates } = rt;
  const compiled = toolOf(ex);
  if (gates.on('CETP-4.1-08') && utf8Length(req.args) > session.limits.maxRequestBytes) {
    return refuse(
      ex,
      new WireFailure('INVALID_ARGS', {
        message: `The arguments are larger than ${session.limits.maxRequestBytes} bytes.`,
      }),
    );
  }
  // Long args the envelope did not parse (argsValue unset) are judged by remembered verdicts first.
  const long = req.argsValue === undefined && req.args.length >= LONG_JSON_TEXT;
  const args = long ? undefined : parsedArgs(req);
  if (long ? !isJsonText(req.args) : args === undefined)
    return refuse(ex, new WireFailure('INVALID_ARGS', { message: 'The arguments are not valid JSON.' }));
  if (gates.on('CETP-5-14', 'CETP-10-10')) {
    const issues = long ? longArgsIssues(compiled.validateInput, req.args) : compiled.validateInput(args);
    if (issues.length > 0) {
      return refuse(
        ex,
        new WireFailure('INVALID_ARGS', {
          message: 'The arguments do not match the tool input schema.',
          details: { issues: issues.slice(0, 10).map((i) => `${i.path ?? ''} ${i.message}`.trim()) },
        }),
      );
    }
  }
  const call = {
    caller: ex.caller,
    requestId: req.requestId,
    requestKey: req.requestKey,
    // A long text is parsed here, each time: the tool gets a value of its own.
    args: (long ? JSON.parse(req.args) : args) as JsonValue,
    context: rt.context,
  };
  const tool = compiled.tool;
  if (tool.validate && gates.on('CETP-7.3-04')) {
    const validate = tool.validate;
    return (async () => {
      const problems = await validate(call);
      if (problems.length > 0 && !(await answeredBefore(ex)))
        return refuse(ex, new WireFailure('INVALID_ARGS', { message: problems[0] ?? 'Invalid arguments.' }));
      return digest(ex, call);
    })();
  }
  return digest(ex, call);
}

/** The envelope's parse of the args, or `JSON.parse` of them; undefined when they are not JSON. */
function parsedArgs(req: Execution['req']): JsonValue | undefined {
  if (req.argsValue !== undefined) return req.argsValue as JsonValue;
  try {
    return JSON.parse(req.args) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * A tool's input-schema issues with a long args text, remembered per validator (issue 37): the
 * malformed property sends the same 20,000-deep arrays and padded texts run after run, and each
 * `JSON.parse` of one costs milliseconds. The issues are a pure function of the text and the
 * validator, so a hit and a miss agree.
 */
const longArgs = caches.memo<string, WeakMap<ToolValueValidator, readonly ProtocolIssue[]>>(
  'providers/sdk/execute: input-schema issues of long args texts',
  64,
);

function longArgsIssues(validate: ToolValueValidator, text: string): readonly ProtocolIssue[] {
  const byValidator = longArgs.get(text, () => new WeakMap());
  let issues = byValidator.get(validate);
  if (issues === undefined) {
    issues = validate(JSON.parse(text));
    byValidator.set(validate, issues);
  }
  return issues;
}

/**
 * Whether this write already has a settled record (terminal, or an operation): then the business
 * validation of its args against today's state must not refuse it — the `dedup` step answers it
 * from the record (6-05). Found by the interpretation matrix: a retried delete whose reply was lost
 * was refused INVALID_ARGS (the alert it deleted no longer exists) instead of its recorded result.
 */
async function answeredBefore(ex: Execution): Promise<boolean> {
  const { rt } = ex;
  if (isReadTool(toolOf(ex).tool)) return false;
  const key = rt.parts.recordKey(ex.caller.uid, rt.descriptor.providerId, ex.req.requestKey);
  const found = rt.parts.live(ex, (await rt.context.storage.get(REQUESTS, key)) as RequestRecord | undefined);
  return found !== undefined && found.state !== 'pending_confirmation';
}

/** The args digest the request record and resume tokens bind (6-03, 4.3-14). */
function digest(ex: Execution, call: Execution['call']): Next {
  const digested = argsDigest(ex.req.args, ex.rt.options.variants.argsDigest);
  if (!digested.ok)
    return refuse(ex, new WireFailure('INVALID_ARGS', { message: 'The arguments are not valid JSON.' }));
  return go(withExecution(ex, { call, digest: digested.value }));
}

export function keyRequest(ex: Execution): Next {
  const key = ex.rt.parts.recordKey(ex.caller.uid, ex.rt.descriptor.providerId, ex.req.requestKey);
  return go(withExecution(ex, { key }));
}
