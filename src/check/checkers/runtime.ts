/**
 * Oracles over how the run ended: it ended because the work was done — not on a task blocked
 * forever, a step budget spent while calls were still in flight, or a task that awaited something
 * outside the simulation — no file descriptor leaked in any live process (CloseGuard), no process
 * crashed or died with a provider it depended on, and — once faults stopped — every accepted
 * operation was seen reaching a terminal state.
 */
import { TERMINAL_OPERATION_STATES } from '../../protocol/index.ts';
import { OWN_LOCK_WAIT } from '../../sim/storage/storage.ts';
import type { CheckContext, Checker } from '../checker.ts';
import { consistency, judgeRun } from '../checker-kit.ts';
import { type CallView, callsWithOperationKey, type Observation } from '../observation.ts';
import { incarnationAt } from './lifecycle.ts';

export const noFdLeaks = judgeRun({
  id: 'no-fd-leaks',
  ruleIds: ['CETP-4.5-09', 'CETP-4.5-04'],
  description: 'No process that is still alive holds a file descriptor at the end of the run.',
  *judge(obs, ctx) {
    for (const l of obs.report.fdLeaks) {
      if ((ctx.hostile ?? []).includes(l.process)) continue;
      yield `${l.process} leaked fd ${l.fd} (${l.target}), opened by ${l.openedBy} at step ${l.openedAtStep}`;
    }
  },
});

export const noCrash = judgeRun({
  id: 'no-crash',
  ruleIds: ['CETP-4.1-15', 'CETP-7.3-01'],
  description: 'No app process crashed or was killed with a provider it held a stable reference to.',
  *judge(obs, ctx) {
    if (obs.report.outcome.kind === 'crash') {
      yield {
        message: `the run crashed in ${obs.report.outcome.task}: ${String(obs.report.outcome.error)}`,
        class: 'crash',
      };
    }
    for (const c of obs.report.crashes) {
      if ((ctx.hostile ?? []).some((h) => c.task.startsWith(`${h}:`))) continue;
      yield { message: `${c.task} crashed: ${c.error}`, class: 'crash' };
    }
    for (const e of obs.events) {
      if (e.kind !== 'process.kill') continue;
      const cause = String(e.data.cause);
      const pkg = String(e.data.package ?? e.data.actor); // `<pkg>@u10`, `<pkg>:name`: its package
      if (cause.startsWith('killed: depends on provider') && ctx.consumers.includes(pkg)) {
        yield {
          message: `${e.data.actor} was ${cause} (a stable provider reference)`,
          events: [e.seq],
          class: 'crash',
        };
      }
    }
  },
});

/** Calls still waiting for their reply when the run ended, to or from an implementation under test. */
function inFlight(obs: Observation, ctx: CheckContext): CallView[] {
  return obs.calls.filter(
    (c) =>
      c.reply.kind === 'none' &&
      (ctx.providersUnderTest.includes(c.provider) || ctx.consumers.includes(c.caller)),
  );
}

function describeCalls(calls: readonly CallView[]): string {
  const shown = calls
    .slice(0, 3)
    .map(
      (c) =>
        `${c.method}${c.toolName ? ` ${c.toolName}` : ''} ${c.caller} → ${c.provider} (since step ${c.step})`,
    );
  return calls.length > 3 ? `${shown.join('; ')}; and ${calls.length - 3} more` : shown.join('; ');
}

/**
 * A task waiting for a write lock its own open transaction holds (src/sim/storage/storage.ts): what it did
 * and the fix first, so that the 300-character cut never takes them.
 */
function ownLockMessage(b: { task: string; on: string; owner: string | null }, others: number): string {
  const tx = b.on.slice(b.on.indexOf(OWN_LOCK_WAIT) + OWN_LOCK_WAIT.length).trim();
  return `deadlock: inside mutate, write through tx, not context.storage — task ${b.task}${b.owner ? ` of ${b.owner}` : ''} wrote through the app's storage while its own transaction ${tx} held the write lock, and waits for that lock forever${others > 0 ? ` (${others} more task(s) blocked behind it)` : ''}`;
}

export const runProgress = judgeRun({
  id: 'run-progress',
  ruleIds: ['CETP-4-01', 'CETP-4-03', 'CETP-4-04', 'CETP-4.2-01', 'CETP-5-01'],
  description:
    'The run ends because the work is done: every call is answered, no task blocks forever, the step budget is not spent on calls still in flight, and no task awaits anything outside the simulation.',
  *judge(obs, ctx) {
    const outcome = obs.report.outcome;
    const pending = inFlight(obs, ctx);
    const calls = pending.map((c) => c.id);
    switch (outcome.kind) {
      case 'stalled':
        yield {
          message: `task ${outcome.task}${outcome.owner ? ` of ${outcome.owner}` : ''} awaited something outside the simulation (a promise that never settles, a real timer or real I/O) at step ${outcome.steps}, and the run could not go on${pending.length > 0 ? `; unanswered: ${describeCalls(pending)}` : ''}`,
          calls,
          class: 'liveness',
        };
        return;
      case 'budget':
        yield {
          message:
            pending.length > 0
              ? `the step budget (${outcome.steps} steps) ran out with calls still unanswered: ${describeCalls(pending)}`
              : `the step budget (${outcome.steps} steps) ran out: tasks kept running without finishing their work`,
          calls,
          class: 'liveness',
        };
        return;
      case 'liveness': {
        // A task the cached-app freezer holds back is stopped by the environment, not blocked by a
        // bug: on a device it runs on when its process is thawed. What a frozen provider leaves
        // undone still shows (unanswered calls, operations-terminate).
        const stuck = outcome.blocked.filter((b) => b.on !== `process ${b.owner} frozen`);
        if (stuck.length === 0) return;
        const own = stuck.find((b) => b.on.includes(OWN_LOCK_WAIT));
        if (own) {
          yield { message: ownLockMessage(own, stuck.length - 1), calls, class: 'liveness' };
          return;
        }
        const blocked = stuck.map((b) => `${b.task} (on ${b.on})`).join('; ');
        yield {
          message: `tasks blocked forever: ${blocked}${pending.length > 0 ? `; unanswered: ${describeCalls(pending)}` : ''}`,
          calls,
          class: 'liveness',
        };
        return;
      }
      default:
        return;
    }
  },
});

/**
 * Packages whose calling identity a fault ended: re-signed with an unrelated key, reinstalled or
 * uninstalled. Their operations can no longer be queried by anyone, so their end is not observable.
 */
function identitiesEnded(obs: Observation): Set<string> {
  const ended = new Set<string>();
  for (const e of obs.events) {
    if (e.kind !== 'fault') continue;
    const f = e.data.fault as { kind?: string; package?: string; rotate?: boolean } | undefined;
    if (f?.package === undefined) continue;
    if ((f.kind === 'resign' && f.rotate !== true) || f.kind === 'reinstall' || f.kind === 'uninstall')
      ended.add(f.package);
  }
  return ended;
}

const TERMINAL_STATES: ReadonlySet<string> = new Set(TERMINAL_OPERATION_STATES);

export const operationsTerminate = judgeRun({
  id: 'operations-terminate',
  ruleIds: ['CETP-4.4-04', 'CETP-4.4-16', 'CETP-4.4-17'],
  description: 'Once faults stop, every accepted operation is seen reaching a terminal state.',
  fields: [
    consistency(
      'the states the operation was seen in, once faults stopped',
      'json:accepted/operation_id',
      'json:operation_status/operation_id',
      'json:operation_status/state',
    ),
  ],
  *judge(obs, ctx) {
    if (obs.quietFromStep === null) return;
    const accepted = new Map<
      string,
      { provider: string; id: number; operationId: string; caller: string; step: number }
    >();
    const ended = identitiesEnded(obs);
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider)) continue;
      if (c.method === 'execute_tool' && c.reply.kind === 'bundle' && c.reply.status === 'accepted') {
        const operationId = (c.reply.data as { operation_id?: string } | undefined)?.operation_id;
        if (operationId)
          accepted.set(`${c.provider}|${operationId}`, {
            provider: c.provider,
            id: c.id,
            operationId,
            caller: c.caller,
            step: c.step,
          });
      }
    }
    for (const [key, op] of accepted) {
      // A terminal state, or RESULT_EXPIRED (the window has passed: the operation is definitively over).
      const terminal = callsWithOperationKey(obs, key).some(
        (c) =>
          c.operationKey === key &&
          c.method === 'get_operation' &&
          c.reply.kind === 'bundle' &&
          ((c.reply.status === 'success' &&
            TERMINAL_STATES.has(String((c.reply.data as { state?: string } | undefined)?.state))) ||
            c.reply.errorCode === 'RESULT_EXPIRED'),
      );
      // Its creator's identity ended (a new key, a reinstall): nobody may ask about it any more (7.1-01).
      // Or the provider's data was wiped since (a reinstall): the operation is gone with it.
      const wiped =
        incarnationAt(obs, op.provider, Number.MAX_SAFE_INTEGER) > incarnationAt(obs, op.provider, op.step);
      if (!terminal && !ended.has(op.caller) && !wiped) {
        yield {
          message: `operation ${op.operationId} on ${op.provider} never reached a terminal state`,
          calls: [op.id],
          class: 'liveness',
        };
      }
    }
  },
});

export const RUNTIME_CHECKERS: readonly Checker[] = [runProgress, noFdLeaks, noCrash, operationsTerminate];
