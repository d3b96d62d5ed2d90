/**
 * The same-step edge (issue 30): a fault — a kill, a re-sign, an uninstall — applies after the task
 * of its step ran, so whatever that task did (a commit, receiving an answer) came before it. Each
 * oracle that compares a step with a lifecycle event's step is shown on a hand-built observation
 * whose event shares the step of what it is compared with.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../sim/core/trace.ts';
import type { World } from '../../sim/world.ts';
import type { CheckContext } from '../checker.ts';
import type { CallView, Observation } from '../observation.ts';
import { callView } from '../testing.ts';
import { noLoopWithoutUser, resumesAfterRestart, waitsForActivityResult } from './consumer-followup.ts';
import { incarnationAt, restartKeepsOperation, restartSessionOutcome } from './lifecycle.ts';
import { consumerTrustsIdentity } from './provider-trust.ts';
import { argsBinding } from './wire.ts';
import { resignEndsSession } from './wire-identity.ts';

const P = 'com.example.todo';
const A = 'com.fuzz.agent.a';
const UID = 10_001;

function event(seq: number, step: number, kind: string, data: Record<string, unknown>): TraceEvent {
  return { seq, step, t: 0, kind, data } as unknown as TraceEvent;
}

function bundleReply(status: string, data: unknown, errorCode: string | null = null): CallView['reply'] {
  return {
    kind: 'bundle',
    status,
    errorCode,
    data,
    bundle: { getString: () => null },
  } as unknown as CallView['reply'];
}

function call(fields: Partial<CallView> & { id: number; method: string; step: number }): CallView {
  return callView({ caller: A, callerUid: UID, provider: P, replyStep: fields.step + 1, ...fields });
}

/** Call `id`, an add_todo execute_tool of request r-1 sent at `step`, with `fields` on top. */
const request = (id: number, step: number, fields: Partial<CallView> = {}) =>
  call({ id, method: 'execute_tool', step, requestId: 'r-1', toolName: 'add_todo', ...fields });

/** Call #2, an execute_tool at step 30 under session T, with `fields` on top. */
const sessionExecution = (fields: Partial<CallView>) =>
  call({ id: 2, method: 'execute_tool', step: 30, sessionToken: 'T', ...fields });

const negotiate = (replyStep: number) =>
  call({
    id: 1,
    method: 'negotiate',
    step: replyStep - 2,
    replyStep,
    reply: bundleReply('success', {
      session_token: 'T',
      expires_at: '2999-01-01T00:00:00Z',
    }),
  });

function obs(calls: CallView[], events: TraceEvent[]): Observation {
  return { world: {} as World, calls, events, effects: [], memo: new Map() } as unknown as Observation;
}

const ctx = { providersUnderTest: [P], consumers: [] } as unknown as CheckContext;
const consumerCtx = { providersUnderTest: [P], consumers: [A] } as unknown as CheckContext;

describe('lifecycle events in the step of what they are compared with', () => {
  it('incarnationAt: a commit before an uninstall of its own step belongs to the earlier incarnation', () => {
    const o = obs([], [event(73, 127, 'store.commit', {}), event(77, 127, 'pm.uninstall', { package: P })]);
    expect(incarnationAt(o, P, 127, 73)).toBe(0);
    expect(incarnationAt(o, P, 127, 78)).toBe(1);
    // Without a trace event: the wipe of the same step counts as later (faults apply after the task).
    expect(incarnationAt(o, P, 127)).toBe(0);
    expect(incarnationAt(o, P, 128)).toBe(1);
  });

  it('restart-session-outcome: a provider killed in the step its session answer arrived still restarted after it', () => {
    const refused = sessionExecution({
      requestId: 'r-1',
      toolName: 'add_todo',
      args: '{}',
      reply: bundleReply('error', undefined, 'INVALID_REQUEST'),
    });
    const kill = event(40, 10, 'process.kill', { actor: P });
    const found = restartSessionOutcome.check(obs([negotiate(10), refused], [kill]), ctx);
    expect(found.map((v) => v.events)).toEqual([[40]]);
    // A kill before the answer arrived is not a restart after it.
    expect(restartSessionOutcome.check(obs([negotiate(11), refused], [kill]), ctx)).toEqual([]);
  });

  it('restart-keeps-operation: an operation accepted in the step its provider was killed is still owed after the restart', () => {
    const accept = request(2, 8, {
      replyStep: 10,
      sessionToken: 'T',
      reply: bundleReply('accepted', { operation_id: 'op_1' }),
    });
    const poll = call({
      id: 4,
      method: 'get_operation',
      step: 30,
      requestId: 'r-1',
      operationId: 'op_1',
      sessionToken: 'U',
      reply: bundleReply('error', undefined, 'INVALID_REQUEST'),
    });
    // A fresh session after the restart.
    const renegotiate = call({
      id: 3,
      method: 'negotiate',
      step: 20,
      replyStep: 22,
      reply: bundleReply('success', {
        session_token: 'U',
        expires_at: '2999-01-01T00:00:00Z',
      }),
    });
    const kill = event(40, 10, 'process.kill', { actor: P });
    const found = restartKeepsOperation.check(obs([accept, renegotiate, poll], [kill]), ctx);
    expect(found.map((v) => v.calls)).toEqual([[2, 4]]);
  });

  it('resign-ends-session: a re-sign in the step the session answer arrived came after the session', () => {
    const honoured = sessionExecution({
      reply: bundleReply('success', {}),
    });
    const events = [
      event(1, 0, 'pm.install', { package: A, uid: UID, signing: { signers: ['k1'] } }),
      event(50, 10, 'pm.resign', { package: A, uid: UID, signing: { signers: ['k2'] } }),
    ];
    expect(resignEndsSession.check(obs([negotiate(10), honoured], events), ctx).map((v) => v.events)).toEqual(
      [[50]],
    );
    expect(resignEndsSession.check(obs([negotiate(11), honoured], events), ctx)).toEqual([]);
  });

  it('consumer-resumes-after-restart: a consumer killed in the step it sent a write, restarted in that step, must follow it up', () => {
    const write = request(1, 10);
    const unanswered = { ...write, reply: { kind: 'none' }, replyStep: null } as unknown as CallView;
    const events = [
      event(20, 10, 'process.kill', { actor: A, pid: 3000 }),
      event(21, 10, 'process.ready', { actor: A, pid: 3001 }),
    ];
    const o = {
      ...obs([unanswered], events),
      report: { outcome: { kind: 'completed' } },
      agentCalls: [],
    } as unknown as Observation;
    const writerCtx = { ...consumerCtx, toolEffects: new Map([[`${P}|add_todo`, 'create']]) };
    expect(resumesAfterRestart.check(o, writerCtx).map((v) => v.checker)).toEqual([
      'consumer-resumes-after-restart',
    ]);
    // The successor re-sent it: nothing to report.
    const resent = { ...unanswered, id: 2, callerPid: 3001, step: 12 } as unknown as CallView;
    const followed = { ...o, calls: [unanswered, resent], memo: new Map() } as unknown as Observation;
    expect(resumesAfterRestart.check(followed, writerCtx)).toEqual([]);
  });

  it('consumer-no-loop-without-user: an Activity launch in the step the needs-the-user answer arrived is a user step', () => {
    const ask = {
      kind: 'bundle',
      status: 'error',
      errorCode: 'AUTH_REQUIRED',
      retryable: false,
      data: undefined,
    };
    const prev = request(1, 5, { replyStep: 10 });
    const next = request(2, 20);
    const calls = [{ ...prev, reply: ask } as unknown as CallView, next];
    // No user step at all: the re-send is a loop.
    expect(noLoopWithoutUser.check(obs(calls, []), consumerCtx)).toHaveLength(1);
    // The consumer launched the resolution as the answer arrived (step 10): blocked, RESULT_CANCELED.
    const launched = [event(30, 10, 'activity.start.blocked', { actor: A })];
    expect(noLoopWithoutUser.check(obs(calls, launched), consumerCtx)).toEqual([]);
  });

  it('consumer-trusts-identity: a call sent in the step the distrusting answer arrived came after it', () => {
    const evil = call({
      id: 1,
      method: 'negotiate',
      step: 8,
      replyStep: 10,
      reply: bundleReply('success', { session_token: 'T', provider_id: 'com.evil.app' }),
    });
    const after = call({ id: 2, method: 'list_tools', step: 10, sessionToken: 'T' });
    expect(consumerTrustsIdentity.check(obs([evil, after], []), consumerCtx).map((v) => v.calls)).toEqual([
      [1, 2],
    ]);
    const before = call({ id: 2, method: 'list_tools', step: 9, sessionToken: 'T' });
    expect(consumerTrustsIdentity.check(obs([evil, before], []), consumerCtx)).toEqual([]);
  });

  it('consumer-waits-for-result: a launch blocked in the step the resolution arrived is the result it waited for', () => {
    const token = 'RT';
    const asked = {
      ...request(1, 5, { replyStep: 10 }),
      reply: {
        kind: 'bundle',
        status: 'error',
        errorCode: 'USER_ACTION_REQUIRED',
        data: undefined,
        bundle: { getString: (k: string) => (k === 'resume_token' ? token : null) },
      },
    } as unknown as CallView;
    const resumed = request(2, 20, { resumeToken: token });
    expect(waitsForActivityResult.check(obs([asked, resumed], []), consumerCtx)).toHaveLength(1);
    const blocked = [event(30, 10, 'activity.start.blocked', { actor: A })];
    expect(waitsForActivityResult.check(obs([asked, resumed], blocked), consumerCtx)).toEqual([]);
  });

  it('args-binding: a read sent in the step the binding write was answered is held to the binding', () => {
    const wctx = {
      providersUnderTest: [P],
      consumers: [],
      toolEffects: new Map([
        [`${P}|add_todo`, 'create'],
        [`${P}|list_todos`, 'read'],
      ]),
    } as unknown as CheckContext;
    const write = request(1, 5, {
      replyStep: 10,
      args: '{"text":"milk"}',
      toolKey: `${P}|add_todo`,
      reply: bundleReply('success', {}),
    });
    const read = (step: number) =>
      request(2, step, {
        replyStep: 12,
        toolName: 'list_todos',
        args: '{}',
        toolKey: `${P}|list_todos`,
        reply: bundleReply('success', {}),
      });
    expect(argsBinding.check(obs([write, read(10)], []), wctx).map((v) => v.calls)).toEqual([[1, 2]]);
    // Sent before the binding was answered: it may have been checked before the write was bound.
    expect(argsBinding.check(obs([write, read(9)], []), wctx)).toEqual([]);
  });
});
