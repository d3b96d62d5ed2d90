/**
 * app-internal-error on hand-built calls: INTERNAL_ERROR for args that fit the tool's input schema
 * fails (an execution, its resume after the user agreed, an operation it started); args outside the
 * schema, replays, args the fixture declares an internal failure of the app by design, and hostile
 * providers pass. Whole runs: the zoo's validate-throws and output-breaks-schema apps fail it
 * (src/zoo/zoo.test.ts floors), the zoo's correct apps and the reference apps pass.
 */
import { describe, expect, it } from 'vitest';
import type { CheckContext } from '../checker.ts';
import type { CallView, Observation } from '../observation.ts';
import { checkContext } from '../testing.ts';
import { appInternalError } from './app-failures.ts';

const P = 'com.example.todo';
const KEY = `${P}|add_todo`;
const SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
};

type Answer = { status: string; errorCode?: string; data?: unknown };

function call(id: number, answer: Answer, over: Partial<Record<string, unknown>> = {}): CallView {
  const rid = (over.requestId as string | undefined) ?? `rid-${id}`;
  return {
    id,
    method: 'execute_tool',
    provider: P,
    callerUid: 10_001,
    v2: true,
    v1: false,
    requestId: rid,
    toolName: 'add_todo',
    toolKey: KEY,
    args: '{"text":"milk"}',
    step: id * 10,
    replyStep: id * 10 + 5,
    requestKey: `${P}|10001|${rid}`,
    operationKey: `${P}|null`,
    reply: { kind: 'bundle', errorCode: null, data: undefined, ...answer },
    lostAnswer: null,
    ...over,
  } as unknown as CallView;
}

const obs = (calls: CallView[]): Observation =>
  ({ calls, events: [], memo: new Map() }) as unknown as Observation;

const ctx = (extra: Partial<CheckContext> = {}): CheckContext =>
  checkContext({
    providersUnderTest: [P],
    toolEffects: new Map([[KEY, 'create']]),
    toolInputSchemas: new Map([[KEY, SCHEMA]]),
    ...extra,
  });

const internal: Answer = { status: 'error', errorCode: 'INTERNAL_ERROR' };

describe('app-internal-error', () => {
  it('fails an execution with args that fit the schema answered INTERNAL_ERROR, naming the call and the rules', () => {
    const found = appInternalError.check(obs([call(1, internal)]), ctx());
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(
      /^add_todo with args that fit its input schema \(\{"text":"milk"\}\) was answered INTERNAL_ERROR \(call #1\)/,
    );
    expect(found[0]?.ruleIds).toContain('CETP-4.2-02');
    expect(found[0]?.calls).toEqual([1]);
  });

  it('fails the resume after the user agreed, and an operation ending failed with INTERNAL_ERROR', () => {
    const asked = call(1, { status: 'error', errorCode: 'USER_ACTION_REQUIRED' }, { requestId: 'r' });
    const resumed = call(2, internal, { requestId: 'r' });
    expect(appInternalError.check(obs([asked, resumed]), ctx()).map((v) => v.calls)).toEqual([[2]]);
    const accepted = call(3, { status: 'accepted', data: { operation_id: 'op_1' } });
    const poll = call(4, {
      status: 'success',
      data: { operation_id: 'op_1', state: 'failed', error: { error_code: 'INTERNAL_ERROR' } },
    });
    const polled = { ...poll, method: 'get_operation', toolName: null, operationKey: `${P}|op_1` };
    const found = appInternalError.check(obs([accepted, polled as CallView]), ctx());
    expect(found.map((v) => v.message)).toEqual([
      expect.stringMatching(
        /started an operation that ended failed with INTERNAL_ERROR \(call #3, poll #4\)/,
      ),
    ]);
  });

  it('passes args outside the schema, a replay of a recorded outcome, declared failures, unknown schemas and hostile providers', () => {
    const bad = call(1, internal, { args: '{"text":5}' });
    expect(appInternalError.check(obs([bad]), ctx())).toEqual([]);
    // The same request after a success (a replay): not an execution.
    const first = call(1, { status: 'success' }, { requestId: 'r' });
    const again = call(2, internal, { requestId: 'r' });
    expect(appInternalError.check(obs([first, again]), ctx())).toEqual([]);
    // The fixture says these args make the app's backend fail ($UID: the caller's UID).
    const declared = ctx({ toolInternalFailures: new Map([[KEY, new Set(['{"text":"$UID"}'])]]) });
    const mine = call(1, internal, { args: '{"text":"10001"}' });
    expect(appInternalError.check(obs([mine]), declared)).toEqual([]);
    expect(appInternalError.check(obs([call(1, internal)]), declared)).toHaveLength(1);
    expect(appInternalError.check(obs([call(1, internal)]), ctx({ toolInputSchemas: new Map() }))).toEqual(
      [],
    );
    expect(appInternalError.check(obs([call(1, internal)]), ctx({ hostile: [P] }))).toEqual([]);
    expect(appInternalError.check(obs([call(1, { status: 'success' })]), ctx())).toEqual([]);
  });
});
