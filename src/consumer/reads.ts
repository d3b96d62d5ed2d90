/**
 * The read-only v2 calls a connection makes after negotiate (spec §3.2, §3.3, §4.1): provider info
 * and the tool list. Each read has a new request_id, kept across its own retries (4.1-12, 4.1-13);
 * a transport failure or a retryable error is retried with backoff, a NEGOTIATION_REQUIRED (the
 * provider restarted in between) negotiates again and re-sends the same read.
 */
import { type V2MethodName, writeRequest } from '../protocol/index.ts';
import type { AppContext } from '../sim/app/context.ts';
import { Bundle } from '../sim/binder/bundle.ts';
import type { ConsumerConfig } from './options.ts';
import { type Classified, classify } from './replies.ts';
import { decideRetry, decideTransportRetry } from './retry.ts';
import type { NegotiationFailure, NegotiationResult, Session } from './session.ts';
import { type CallOutcome, closeFds, type ProviderChannel } from './transport.ts';

export type ReadResult = { ok: true; data: unknown; session: Session } | NegotiationFailure;

export async function readV2(
  context: AppContext,
  channel: ProviderChannel,
  config: ConsumerConfig,
  method: 'get_provider_info' | 'list_tools',
  session: Session,
  renegotiate: () => Promise<NegotiationResult>,
): Promise<ReadResult> {
  const requestId = context.seededUuid();
  let retries = 0;
  let current = session;
  for (;;) {
    const sent = await sendRead(context, channel, config, method, current, requestId);
    const c: Classified<typeof method> = classify(
      sent,
      method,
      { requestId, capabilities: current.capabilities, maxDataBytes: config.limits.maxMetadataBytes },
      config,
    );
    if (sent.kind === 'reply') closeFds(sent.bundle);
    if (c.kind === 'success') return { ok: true, data: c.data, session: current };
    if (c.kind === 'invalid' || c.kind === 'accepted')
      return { ok: false, temporary: false, reason: `invalid_${method}` };
    if (
      c.kind === 'error' &&
      c.error.code === 'NEGOTIATION_REQUIRED' &&
      retries < config.retry.maxRenegotiations
    ) {
      retries++;
      const again = await renegotiate();
      if (!again.ok) return again;
      current = again.session;
      continue;
    }
    const decision =
      c.kind === 'error' ? decideRetry(c.error, retries, config) : decideTransportRetry(retries, config);
    if (!decision.retry) {
      const temporary = c.kind === 'transport' || (c.kind === 'error' && c.error.retryable);
      return {
        ok: false,
        temporary,
        reason: c.kind === 'error' ? `${method}_${c.error.code}` : `${method}_transport`,
      };
    }
    retries++;
    await context.sleep(decision.delayMs);
  }
}

function sendRead(
  context: AppContext,
  channel: ProviderChannel,
  config: ConsumerConfig,
  method: V2MethodName,
  session: Session,
  requestId: string,
): Promise<CallOutcome> {
  const extras = new Bundle();
  writeRequest(extras, method as 'list_tools', {
    protocolVersion: 2,
    sessionToken: session.token,
    requestId,
    deadlineAtMs: context.currentTimeMillis() + config.callDeadlineMs,
  });
  return channel.call(method, extras);
}
