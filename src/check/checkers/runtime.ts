/**
 * Oracles over how the run ended: no file descriptor leaked in any live process (CloseGuard), no
 * process crashed or died with a provider it depended on, and — once faults stopped — every
 * accepted operation was seen reaching a terminal state, and no task was left blocked.
 */
import { type Checker, violation } from '../checker.ts';

export const noFdLeaks: Checker = {
  id: 'no-fd-leaks',
  ruleIds: ['CETP-4.5-09', 'CETP-4.5-04'],
  description: 'No process that is still alive holds a file descriptor at the end of the run.',
  check(obs, ctx) {
    return obs.report.fdLeaks
      .filter((l) => !(ctx.hostile ?? []).includes(l.process))
      .map((l) =>
        violation(
          this,
          `${l.process} leaked fd ${l.fd} (${l.target}), opened by ${l.openedBy} at step ${l.openedAtStep}`,
        ),
      );
  },
};

export const noCrash: Checker = {
  id: 'no-crash',
  ruleIds: ['CETP-4.1-15', 'CETP-7.3-01'],
  description: 'No app process crashed or was killed with a provider it held a stable reference to.',
  check(obs, ctx) {
    const out = [];
    if (obs.report.outcome.kind === 'crash') {
      out.push(
        violation(
          this,
          `the run crashed in ${obs.report.outcome.task}: ${String(obs.report.outcome.error)}`,
          { class: 'crash' },
        ),
      );
    }
    for (const c of obs.report.crashes) {
      if ((ctx.hostile ?? []).some((h) => c.task.startsWith(`${h}:`))) continue;
      out.push(violation(this, `${c.task} crashed: ${c.error}`, { class: 'crash' }));
    }
    for (const e of obs.events) {
      if (e.kind !== 'process.kill') continue;
      const cause = String(e.data.cause);
      if (cause.startsWith('killed: depends on provider') && ctx.consumers.includes(String(e.data.actor))) {
        out.push(
          violation(this, `${e.data.actor} was ${cause} (a stable provider reference)`, {
            events: [e.seq],
            class: 'crash',
          }),
        );
      }
    }
    return out;
  },
};

const TERMINAL_STATES = new Set(['succeeded', 'failed', 'cancelled']);

export const operationsTerminate: Checker = {
  id: 'operations-terminate',
  ruleIds: ['CETP-4.4-04', 'CETP-4.4-16', 'CETP-4.4-17'],
  description:
    'Once faults stop, every accepted operation is seen reaching a terminal state; no task stays blocked.',
  check(obs, ctx) {
    const out = [];
    if (obs.report.outcome.kind === 'liveness') {
      const blocked = obs.report.outcome.blocked.map((b) => `${b.task} (on ${b.on})`).join('; ');
      out.push(violation(this, `tasks blocked forever: ${blocked}`, { class: 'liveness' }));
    }
    if (obs.quietFromStep === null) return out;
    const accepted = new Map<string, { provider: string; id: number; operationId: string }>();
    for (const c of obs.calls) {
      if (!ctx.providersUnderTest.includes(c.provider)) continue;
      if (c.method === 'execute_tool' && c.reply.kind === 'bundle' && c.reply.status === 'accepted') {
        const operationId = (c.reply.data as { operation_id?: string } | undefined)?.operation_id;
        if (operationId)
          accepted.set(`${c.provider}|${operationId}`, { provider: c.provider, id: c.id, operationId });
      }
    }
    for (const [key, op] of accepted) {
      // A terminal state, or RESULT_EXPIRED (the window has passed: the operation is definitively over).
      const terminal = obs.calls.some(
        (c) =>
          c.operationKey === key &&
          c.method === 'get_operation' &&
          c.reply.kind === 'bundle' &&
          ((c.reply.status === 'success' &&
            TERMINAL_STATES.has(String((c.reply.data as { state?: string } | undefined)?.state))) ||
            c.reply.errorCode === 'RESULT_EXPIRED'),
      );
      if (!terminal) {
        out.push(
          violation(this, `operation ${op.operationId} on ${op.provider} never reached a terminal state`, {
            calls: [op.id],
            class: 'liveness',
          }),
        );
      }
    }
    return out;
  },
};

export const RUNTIME_CHECKERS: readonly Checker[] = [noFdLeaks, noCrash, operationsTerminate];
