/**
 * One logical execution against a v2 provider — the consumer's retry discipline in motion (spec
 * §4.1, §4.3, §5, §6).
 *
 * The request_id is fixed for the whole execution: every re-send after Binder death, a null reply,
 * a timeout, NEGOTIATION_REQUIRED (after renegotiating), a retryable error or DEADLINE_EXCEEDED,
 * and the resume after a confirmation, carries it — and the exact same args bytes (4.1-04, 4.1-15,
 * 4.1-16, 6-08, NOTES 6). On DEADLINE_EXCEEDED the first next step is a same-id query, which for a
 * synchronous call is the same-id re-send with a fresh deadline (5-19, NOTES 5). A confirmation
 * needs a verified resolution, a launched Activity and its result before the resume (4.3-07,
 * 4.3-12), and a bounded number of them (5-28). An `accepted` goes to operations.ts.
 *
 * Every reply is settled: each fd it carries is closed once it has been handled, on every path
 * (4.5-09).
 */

import type { JsonValue } from '../base/json.ts';
import type { ErrorCode, ExecutionResult } from '../protocol/index.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import type { AttemptReason } from './audit.ts';
import type { ConsumerTool } from './catalogue.ts';
import type { CetpClient } from './client.ts';
import { launchResolution } from './confirmation.ts';
import { readFileResult } from './large-results.ts';
import { type CancelSignal, followOperation } from './operations.ts';
import { failure, type OutcomeSource, success, type ToolFailureBody, type ToolOutcome } from './outcomes.ts';
import { ResendReadings } from './readings.ts';
import { type Classified, classify, type ReceivedFailure } from './replies.ts';
import { decideRetry, decideTransportRetry } from './retry.ts';
import type { Session } from './session.ts';
import { closeFds } from './transport.ts';
import { type UntrustedProgress, untrustedValue } from './untrusted.ts';

export interface ExecutionPlan {
  readonly executionId: string;
  readonly requestId: string;
  readonly tool: ConsumerTool;
  /** The exact args string, sent byte for byte on every attempt. */
  readonly args: string;
  readonly journaled: boolean;
  readonly firstReason: AttemptReason;
  readonly cancel: CancelSignal | null;
  readonly onProgress: ((progress: UntrustedProgress) => void) | null;
}

/** What handling one reply leads to: an outcome, or another call with a reason. */
export type Step = { readonly done: ToolOutcome } | { readonly next: AttemptReason };

export class ExecutionRun {
  requestId: string;
  retries = 0;
  renegotiations = 0;
  private userActions = 0;
  private resumeToken: string | null = null;
  /** The last call re-sent a resume token already sent once (a retry of the resume call). */
  // Stryker disable next-line BooleanLiteral: equivalent — run() assigns it before every send, and it is read only after one
  private tokenResent = false;
  /** Whether any call may have reached the provider (after which only it knows the outcome). */
  mayHaveReached = false;
  /**
   * Whether a call may have reached the provider with its answer never seen (a lost reply, a death, a
   * timeout, or a journaled execution a new process resumes): only the provider knows whether it
   * took effect, so giving up later is an unknown outcome, never "unavailable" (4.1-15, 6-05, 6-08).
   */
  private sentUnanswered: boolean;
  /** What re-sends carry under the consumer's readings (NOTES 5, 6; readings.ts). */
  private readonly resends: ResendReadings;

  constructor(
    readonly client: CetpClient,
    readonly plan: ExecutionPlan,
  ) {
    this.requestId = plan.requestId;
    this.resends = new ResendReadings(client.config.variants, plan.firstReason !== 'first');
    this.sentUnanswered = plan.firstReason !== 'first';
  }

  get config() {
    return this.client.config;
  }

  get context() {
    return this.client.context;
  }

  get source(): OutcomeSource {
    return {
      providerId: this.plan.tool.providerId,
      tool: this.plan.tool.name,
      executionId: this.plan.executionId,
      requestId: this.requestId,
    };
  }

  fail(body: ToolFailureBody): ToolOutcome {
    return failure(this.source, body);
  }

  async run(): Promise<ToolOutcome> {
    let reason = this.plan.firstReason;
    for (;;) {
      if (reason === 'retry' || reason === 'query') this.maybeRenewRequestId();
      const token = this.resumeToken;
      const withToken = token !== null && (reason === 'resume' || this.config.variants.resendResumeToken);
      this.tokenResent = withToken && reason !== 'resume';
      const sent = await this.client.send('execute_tool', {
        requestId: this.requestId,
        attempt: { executionId: this.plan.executionId, reason },
        fill: (b) => {
          b.putString('tool_name', this.plan.tool.name);
          b.putString('args', this.resends.args(this.plan.args));
          this.resends.deadline(b);
          if (withToken) b.putString('resume_token', token);
        },
      });
      if (!('outcome' in sent)) return this.unreachable(sent.temporary, sent.reason);
      if (sent.outcome.kind !== 'refused') this.mayHaveReached = true;
      if (sent.outcome.kind !== 'refused' && sent.outcome.kind !== 'reply') this.sentUnanswered = true;
      const c = classify(sent.outcome, 'execute_tool', this.classifyOptions(sent.session), this.config);
      const attempted = reason;
      const step = await this.guarded(() => this.handle(c, sent.session, attempted));
      if (sent.outcome.kind === 'reply') this.settleReply(sent.outcome.bundle, step);
      if ('done' in step) return step.done;
      reason = step.next;
    }
  }

  classifyOptions(session: Session) {
    return {
      requestId: this.requestId,
      capabilities: session.capabilities,
      maxDataBytes: session.limits.maxInlineResultBytes,
      maxInlineResultBytes: session.limits.maxInlineResultBytes,
    };
  }

  /**
   * Runs one handling step so that nothing a provider sends can crash the consumer's thread: an
   * unexpected exception (a consumer bug) is logged and ends the execution as an invalid response,
   * and the reply's fds are still closed by the caller.
   */
  async guarded<S>(step: () => Promise<S>): Promise<S | { readonly done: ToolOutcome }> {
    try {
      return await step();
    } catch (error) {
      this.context.log('E', 'CetpConsumer', `execution ${this.plan.executionId} failed: ${String(error)}`);
      return { done: this.fail({ kind: 'invalid_response', issues: ['consumer_error'] }) };
    }
  }

  /** Closes every fd of a handled reply (4.5-09). */
  settleReply(bundle: Bundle, step: Step): void {
    const failed = !('done' in step) || step.done.kind !== 'ok';
    if (this.config.parts.closesReplyFds(failed)) closeFds(bundle);
  }

  private async handle(
    c: Classified<'execute_tool'>,
    session: Session,
    reason: AttemptReason,
  ): Promise<Step> {
    switch (c.kind) {
      case 'transport':
        return this.afterTransportFailure(c.outcome.kind);
      case 'invalid':
        return { done: this.invalid(c.issues, c.oversized) };
      case 'success':
        return { done: await this.resultOutcome(c.data, c.bundle) };
      case 'accepted':
        if (this.plan.journaled)
          await this.client.journal.update(this.plan.executionId, { operationId: c.operationId });
        return { done: await followOperation(this, c.operationId, c.pollAfterMs) };
      case 'error':
        return this.afterError(c.error, session, reason);
    }
  }

  invalid(issues: readonly string[], oversized: boolean): ToolOutcome {
    return oversized
      ? this.fail({ kind: 'integrity', check: 'over_local_limit' })
      : this.fail({ kind: 'invalid_response', issues });
  }

  /** Death, a null reply or a timeout: the outcome is unknown; re-send with the same id (6-08). */
  async afterTransportFailure(kind: string): Promise<Step> {
    const decision = decideTransportRetry(this.retries, this.config);
    if (decision.retry) {
      this.retries++;
      await this.context.sleep(decision.delayMs);
      return { next: 'retry' };
    }
    return { done: this.unreachable(true, `transport_${kind}`) };
  }

  /** The provider could not be reached (any more): unknown if a call may have landed. */
  unreachable(temporary: boolean, reason: string): ToolOutcome {
    if (this.mayHaveReached && this.plan.tool.annotations.effect !== 'read') {
      return this.fail({ kind: 'outcome_unknown', reason });
    }
    return this.fail({ kind: 'provider_unavailable', temporary });
  }

  private async afterError(e: ReceivedFailure, session: Session, reason: AttemptReason): Promise<Step> {
    const { gates } = this.config;
    if (e.code === 'NEGOTIATION_REQUIRED') return this.renegotiateStep(session);
    if (e.code === 'INVALID_REQUEST' && this.tokenResent && this.resends.queriesAfterRefusedToken()) {
      // NOTES 2: a re-sent token the provider already consumed (its reply was lost) may be refused
      // by a provider that checks the token before its request record. Ask once more without it:
      // the same request_id then reaches the record (its result, or the pending resolution).
      this.resumeToken = null;
      return { next: 'query' };
    }
    if ((e.code === 'AUTH_REQUIRED' || e.code === 'USER_ACTION_REQUIRED') && e.resolution && e.resumeToken) {
      return this.resolve(e);
    }
    if (e.code === 'DEADLINE_EXCEEDED' && gates.on('CETP-5-19') && reason !== 'query') {
      // 5-19: first a same-id query — for a sync call, the same-id re-send with a fresh deadline.
      // What the query itself answers is then subject to the retry rules like any other error.
      return { next: 'query' };
    }
    const decision = decideRetry(e, this.retries, this.config);
    if (decision.retry) {
      this.retries++;
      await this.context.sleep(decision.delayMs);
      return { next: 'retry' };
    }
    if ((decision.why === 'exhausted' || decision.why === 'retry_after_too_long') && e.retryable) {
      // A write an earlier call may have made: the agent must not be invited to try again under a
      // new request_id (a second transfer); what happened is unknown (4.1-15, 6-05, 6-08).
      if (this.sentUnanswered && this.plan.tool.annotations.effect !== 'read')
        return { done: this.fail({ kind: 'outcome_unknown', reason: `gave_up_${e.code}` }) };
      const after = e.retryAfterMs;
      return {
        done: this.fail({
          kind: 'provider_unavailable',
          temporary: true,
          ...(after !== null ? { retryAfterMs: after } : {}),
        }),
      };
    }
    return { done: this.terminalError(e) };
  }

  /** The failure a non-retried error ends the execution with. */
  terminalError(e: {
    code: ErrorCode | 'UNRECOGNIZED';
    message: ReceivedFailure['message'];
    details: ReceivedFailure['details'];
  }): ToolOutcome {
    switch (e.code) {
      case 'USER_CANCELLED':
        return this.fail({ kind: 'user_cancelled' });
      case 'CANCELLED':
        return this.fail({ kind: 'cancelled' });
      case 'RESULT_EXPIRED':
        return this.fail({ kind: 'result_expired' });
      case 'RESULT_TOO_LARGE':
        return this.fail({ kind: 'result_too_large', committed: e.details?.outcome_committed === true });
      default:
        return this.fail({
          kind: 'rejected',
          code: e.code,
          providerMessage: e.message.text === '' ? null : e.message,
        });
    }
  }

  /** NEGOTIATION_REQUIRED: negotiate again (re-reading the tool list), then the same request (NOTES 8b). */
  async renegotiateStep(session: Session): Promise<Step> {
    if (this.renegotiations >= this.config.retry.maxRenegotiations) {
      return { done: this.unreachable(true, 'renegotiation_limit') };
    }
    this.renegotiations++;
    const again = await this.client.renegotiate(session);
    if (!again.ok) return { done: this.unreachable(again.temporary, again.reason) };
    const tool = this.client.tool(this.plan.tool.name);
    if (!tool) {
      // The tool is gone from the new list, but an earlier send of this write may have landed: its
      // outcome is unknown, not "no such tool" (which invites a new request_id: 4.1-15, 6-05, 6-08).
      if (this.sentUnanswered && this.plan.tool.annotations.effect !== 'read')
        return { done: this.fail({ kind: 'outcome_unknown', reason: 'tool_gone_after_send' }) };
      return { done: this.fail({ kind: 'tool_not_found' }) };
    }
    return { next: 'retry' };
  }

  /** AUTH_REQUIRED / USER_ACTION_REQUIRED with a resolution: verify, launch, wait, resume (4.3). */
  private async resolve(e: ReceivedFailure): Promise<Step> {
    const { gates, retry } = this.config;
    if (this.userActions >= retry.maxUserActions && gates.on('CETP-5-28')) {
      return { done: this.fail({ kind: 'user_action_loop' }) };
    }
    const pi = e.resolution as NonNullable<ReceivedFailure['resolution']>;
    const provider = { packageName: this.client.provider.packageName, uid: this.client.provider.providerUid };
    const check = this.config.parts.verifyResolution(pi, provider, gates);
    if (!check.ok) return { done: this.fail({ kind: 'refused_resolution', reason: check.reason }) };
    this.userActions++;
    const launched = await launchResolution(this.context, pi, gates, this.config.screen);
    if (!launched.ok) return { done: this.fail({ kind: 'refused_resolution', reason: launched.reason }) };
    // RESULT_OK or RESULT_CANCELED (Back): resume either way; the provider decides (interpretations.md).
    this.resumeToken = e.resumeToken;
    return { next: 'resume' };
  }

  /** A success's result envelope: inline (validated) or a verified file. */
  async resultOutcome(result: ExecutionResult, bundle: Bundle): Promise<ToolOutcome> {
    const { gates } = this.config;
    const tool = this.plan.tool;
    if (result.kind === 'inline') {
      const value = result.value as JsonValue;
      if (gates.on('CETP-7.3-02', 'CETP-4.2-04') && tool.validateOutput(value).length > 0) {
        return this.fail({ kind: 'integrity', check: 'output_schema' });
      }
      return success(this.source, untrustedValue(tool.providerId, tool.name, 'inline', value));
    }
    const read = await readFileResult(this.context, bundle, result, tool, this.config);
    if (!read.ok) return this.fail({ kind: 'integrity', check: read.check });
    return success(this.source, untrustedValue(tool.providerId, tool.name, 'file', read.value));
  }

  /** With 4.1-04 ablated (or a planted bug): a retry goes out under a brand-new request_id. */
  maybeRenewRequestId(): void {
    if (this.config.parts.renewsRequestId(this.config.gates)) {
      this.requestId = this.context.seededUuid();
    }
  }
}
