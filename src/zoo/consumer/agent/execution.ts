/**
 * One logical execution on a v2 provider: the retry discipline in motion (spec §4.1, §4.3, §5, §6).
 *
 * The request_id and the args bytes are fixed for the whole execution: every re-send — after a
 * lost reply (Binder death, null, timeout), NEGOTIATION_REQUIRED (after a new session), a
 * retryable error, the query after DEADLINE_EXCEEDED (5-19), the resume after a confirmation —
 * carries them (4.1-04, 4.1-15, 4.1-16, 6-08). An outcome we cannot know is told to the agent as
 * unknown, never as "unavailable" or "failed". Every reply's fds are closed once handled (4.5-09).
 */
import { type AppContext, type Bundle, protocol } from '../../../index.ts';
import { type Answer, type AnswerKind, answer, type Source } from './answers.ts';
import type { Cancellation } from './cancellation.ts';
import type { Tool } from './catalogue.ts';
import type { Screen } from './confirmation.ts';
import type { Provider } from './discovery.ts';
import { followOperation } from './operations.ts';
import { backoffMs, type Policy } from './policy.ts';
import { resultAnswer } from './results.ts';
import type { Connection, Session } from './session.ts';

export interface Plan {
  readonly provider: Provider;
  readonly tool: string;
  readonly args: string;
  readonly requestId: string;
  readonly cancel: Cancellation | null;
  /** Resumed from the journal: an earlier process may have sent it already. */
  readonly resumed: boolean;
}

/** Codes that say nothing about whether the request took effect. */
export const OPEN_CODES = new Set([
  'DEADLINE_EXCEEDED',
  'UNAVAILABLE',
  'RATE_LIMITED',
  'NEGOTIATION_REQUIRED',
]);

type Step = { readonly done: Answer } | { readonly again: 'retry' | 'resume' | 'query' };

export class Execution {
  private retries = 0;
  private renegotiations = 0;
  private userActions = 0;
  private queried = false;
  private resumeToken: string | null = null;
  /** A call may have reached the provider without us learning its answer. */
  private unanswered: boolean;
  session: Session | null = null;

  constructor(
    readonly context: AppContext,
    readonly connection: Connection,
    readonly screen: Screen,
    readonly plan: Plan,
    readonly isWrite: boolean,
    readonly policy: Policy,
  ) {
    this.unanswered = plan.resumed;
  }

  get source(): Source {
    const providerId = this.session?.providerId ?? this.plan.provider.packageName;
    return { providerId, tool: this.plan.tool, requestId: this.plan.requestId };
  }

  end(kind: AnswerKind, more: Parameters<typeof answer>[2] = {}): Answer {
    return answer(this.source, kind, more);
  }

  /** Nothing more can be learned now: unknown if a write may have landed, else unavailable. */
  unreachable(): Answer {
    return this.end(this.policy.conduct.unreachableKind(this.isWrite, this.unanswered));
  }

  async run(): Promise<Answer> {
    for (let reason = 'first'; ; ) {
      const connected = await this.connection.connect(true);
      if (!connected.ok) return this.unreachable();
      this.session = connected.session;
      const tool = connected.session.catalogue.tools.get(this.plan.tool);
      if (!tool) return this.end('tool_not_found');
      const token = reason === 'resume' ? this.resumeToken : null;
      const reply = await this.connection.sendIn(
        connected.session,
        'execute_tool',
        this.policy.conduct.requestIdOf(this.plan.requestId, reason, this.context),
        (b) => {
          b.putString('tool_name', this.plan.tool);
          b.putString('args', this.policy.conduct.argsOf(this.plan.args, reason));
          if (token !== null) b.putString('resume_token', token);
        },
      );
      if (reply.kind === 'refused' && reply.permanent) return this.unreachable();
      if (reply.kind !== 'reply') {
        if (reply.kind === 'lost') this.unanswered = true; // a refused call never left
        if (reply.kind === 'lost' && this.policy.conduct.lostReplyGivesUp())
          return this.end('provider_unavailable');
        if (this.retries >= this.policy.maxRetries) return this.unreachable();
        await this.context.sleep(backoffMs(this.policy, this.retries++));
        reason = 'retry'; // without the token: the same request_id is the query (NOTES 2)
        continue;
      }
      let step: Step;
      try {
        step = await this.handle(reply.bundle, tool, connected.session);
      } finally {
        this.policy.conduct.closeReply(reply.bundle);
      }
      if ('done' in step) return step.done;
      reason = step.again;
    }
  }

  private async handle(bundle: Bundle, tool: Tool, session: Session): Promise<Step> {
    const read = protocol.readResponseBundle(bundle, 'execute_tool', {
      expectedRequestId: this.plan.requestId,
      negotiatedCapabilities: session.capabilities,
      maxInlineResultBytes: session.maxInlineResultBytes,
    });
    if (!read.ok) {
      if (!this.policy.conduct.resendsUnreadable(bundle) || this.retries >= this.policy.maxRetries)
        return { done: this.end('invalid_response') };
      await this.context.sleep(backoffMs(this.policy, this.retries++));
      return { again: 'retry' };
    }
    const r = read.value;
    if (r.status === 'success')
      return {
        done: await resultAnswer(this.context, this.source, tool, r.data, bundle, this.policy.conduct),
      };
    if (r.status === 'accepted') {
      this.unanswered = true;
      return { done: await followOperation(this, tool, r.data.operation_id, r.data.poll_after_ms) };
    }
    return this.afterError(r.error, bundle, session);
  }

  private async afterError(e: protocol.ReceivedError, bundle: Bundle, session: Session): Promise<Step> {
    if (e.code === 'NEGOTIATION_REQUIRED') {
      if (this.renegotiations++ >= this.policy.maxRenegotiations) return { done: this.unreachable() };
      const again = await this.connection.renegotiate(session);
      return again.ok ? { again: 'retry' } : { done: this.unreachable() };
    }
    if (e.code === 'AUTH_REQUIRED' || e.code === 'USER_ACTION_REQUIRED') {
      const pi =
        bundle.typeOf('resolution') === 'PendingIntent' ? bundle.getPendingIntent('resolution') : null;
      if (pi === null || !e.resumeToken) return { done: this.rejected(e) };
      if (this.userActions++ >= this.policy.maxUserActions) return { done: this.end('user_action_loop') };
      const conduct = this.policy.conduct;
      if (!conduct.isProvidersOwn(pi, this.plan.provider)) return { done: this.end('refused_resolution') };
      const next = await conduct.onResolution(() => this.screen.launch(pi));
      if (next === 'refused') return { done: this.end('refused_resolution') };
      if (next === 'retry') return { again: 'retry' };
      this.resumeToken = conduct.nextResumeToken(this.resumeToken, e.resumeToken);
      return { again: 'resume' };
    }
    if (e.code === 'DEADLINE_EXCEEDED' && this.policy.conduct.queriesAfterDeadline(this.queried)) {
      this.queried = true; // 5-19: first a same-id query (for a sync call, the same-id re-send)
      this.unanswered = true;
      if (this.policy.queryAfterDeadline === 'after-backoff')
        await this.context.sleep(backoffMs(this.policy, this.retries));
      return { again: 'query' };
    }
    const delay = this.policy.conduct.retryDelay(this.policy, e, this.retries);
    if (delay !== null) {
      this.retries++;
      await this.context.sleep(delay);
      return { again: 'retry' };
    }
    return { done: this.terminal(e.code, e.message) };
  }

  /** The answer a non-retried error ends the execution with. */
  terminal(code: string, message: string): Answer {
    if (code === 'USER_CANCELLED') return this.end('user_cancelled');
    if (code === 'CANCELLED') return this.end('cancelled');
    if (OPEN_CODES.has(code) && this.isWrite && this.unanswered) return this.end('outcome_unknown', { code });
    return this.rejected({ code, message });
  }

  private rejected(e: { code: string; message: string }): Answer {
    return this.policy.conduct.rejected(this.policy, this.source, e);
  }
}
