/** Test support for the oracles' tests (not shipped: tsconfig.build.json leaves testing.ts out). */
import type { CommitRecord, CommitWrite } from '../sim/ground-truth.ts';
import type { CheckContext } from './checker.ts';
import type { CallView } from './observation.ts';

/** A check context with nothing under test and no tool known, with `over` on top. */
export function checkContext(over: Partial<CheckContext> = {}): CheckContext {
  return {
    providersUnderTest: [],
    consumers: [],
    toolEffects: new Map(),
    toolScopes: new Map(),
    userGrantedScopes: new Map(),
    ...over,
  };
}

/**
 * A hand-built call: a v2 execute_tool of `over.provider` by com.fuzz.agent.a (uid 10001, pid 3000)
 * at step id × 10 with no reply yet, and `over` on top; its tool, request and operation keys follow
 * its fields.
 */
export function callView(
  over: Partial<CallView> & { readonly id: number; readonly provider: string },
): CallView {
  const c = {
    caller: 'com.fuzz.agent.a',
    callerUid: 10_001,
    callerPid: 3000,
    t: 0,
    v2: true,
    v1: false,
    method: 'execute_tool',
    step: over.id * 10,
    requestId: null,
    sessionToken: null,
    toolName: null,
    args: null,
    resumeToken: null,
    operationId: null,
    reply: { kind: 'none' },
    lostAnswer: null,
    replyStep: null,
    ...over,
  } as const;
  return {
    toolKey: `${c.provider}|${c.toolName}`,
    requestKey: `${c.provider}|${c.callerUid}|${c.requestId}`,
    operationKey: `${c.provider}|${c.operationId}`,
    ...c,
  } as unknown as CallView;
}

/** A commit of `packageName`'s process (pid 2001, first incarnation) at seq and step `seq`, made for `call`. */
export function commitRecord(
  packageName: string,
  seq: number,
  call: number | null,
  writes: CommitWrite[],
  task = seq,
  pid = 2001,
): CommitRecord {
  return {
    seq,
    step: seq,
    t: 0,
    packageName,
    process: packageName,
    pid,
    incarnation: 1,
    tx: `tx ${seq}`,
    writes,
    task,
    call,
  };
}
