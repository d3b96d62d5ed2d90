/**
 * The reference consumer's options. Defaults inject no fault and plant no bug; every limit here is
 * the consumer's OWN local cap (CETP-2.2-21, 2.2-22): negotiated limits say what the protocol
 * permits, these say what this consumer is willing to hold, read or wait for.
 */
import type { Capability, Effect, Risk } from '../protocol/index.ts';
import { ScreenTurns } from './confirmation.ts';
import { ConsumerGates } from './gates.ts';
import { assertConsumerOptions } from './options-check.ts';
import { type ConsumerParts, REFERENCE_CONSUMER_PARTS } from './parts.ts';
import { plantConsumerBugs } from './planted.ts';

export interface ConsumerLimits {
  /** Largest inline `data` string (UTF-8 bytes) accepted, whatever was negotiated (2.2-21). */
  readonly maxInlineResultBytes: number;
  /** Local read limit for file results (4.5-08): a larger declared size is refused unread. */
  readonly maxFileResultBytes: number;
  /** Largest `data` of negotiate / get_provider_info / list_tools / get_operation accepted (7.3-01). */
  readonly maxMetadataBytes: number;
  /** Tools kept per provider; the rest of a longer list is rejected (7.3-01). */
  readonly maxTools: number;
  /** Caps on provider text shown to the user or the agent (7.3-01), in UTF-16 code units. */
  readonly maxTitleChars: number;
  readonly maxDescriptionChars: number;
  readonly maxMessageChars: number;
  /** Tool schemas: size and nesting accepted by the consumer's own compiler (7.3-01, 7.3-02). */
  readonly maxSchemaBytes: number;
  readonly maxSchemaDepth: number;
}

export interface RetryOptions {
  /** Automatic re-sends of one call (transport failures, retryable errors, deadline queries). */
  readonly maxRetries: number;
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  /** A retry_after_ms above this is not waited for: the provider is reported unavailable. */
  readonly maxRetryAfterMs: number;
  readonly maxRenegotiations: number;
  /** Resolutions (user actions) followed within one execution before giving up (5-28). */
  readonly maxUserActions: number;
  readonly maxPolls: number;
  readonly minPollMs: number;
  readonly maxPollMs: number;
}

export interface ApprovalRequest {
  readonly providerId: string;
  readonly providerLabel: string;
  readonly tool: string;
  readonly title: string;
  readonly effect: Effect;
  readonly risk: Risk;
  readonly destructive: boolean;
}

/**
 * The consumer-side approval (an agent app's own "are you sure?"). It is an extra gate in front of
 * a call, never a substitute for the provider's confirmation (1-02, 4.3-10): nothing of it is sent.
 * 'activity' asks the user in the consumer's own Activity (see app.ts).
 */
export type LocalApproval = 'none' | 'activity' | ((request: ApprovalRequest) => boolean | Promise<boolean>);

/** Readings of the spec that are both defensible (spec/interpretations.md). */
export interface ConsumerVariants {
  /** NOTES 2: re-send the resume token on every retry of the resume call (default) or only once. */
  readonly resendResumeToken: boolean;
  /** NOTES 2: after a re-sent token is refused, ask once more without it (default) or give up (5-26). */
  readonly refusedToken: 'query' | 'give_up';
  /** NOTES 6: re-sends carry the args bytes first sent (default) or the args re-serialised (RFC 8785). */
  readonly argsBytes: 'exact' | 'reserialize';
  /** NOTES 5: every call gets a fresh deadline (default) or re-sends keep the execution's first one. */
  readonly retryDeadline: 'fresh' | 'original';
}

export interface ConsumerOptions {
  /** Optional capabilities offered in negotiate (2.2-03); default all three. */
  readonly capabilities: readonly Capability[];
  /** deadline_at_ms = now + this, fresh for every transport call (NOTES 5). */
  readonly callDeadlineMs: number;
  /** How long one Binder call is waited for before it counts as a timeout; null = forever. */
  readonly callTimeoutMs: number | null;
  readonly limits: ConsumerLimits;
  readonly retry: RetryOptions;
  readonly localApproval: LocalApproval;
  /** Tools with at least this risk (and effect ≠ read) go through the local approval. */
  readonly localApprovalMinRisk: Risk;
  /**
   * v1 tools known (by local configuration) to have side effects, as "package/tool": disabled
   * unless the local approval allows the call (8-12).
   */
  readonly v1SideEffectTools: readonly string[];
  readonly variants: ConsumerVariants;
  readonly disabledRules: readonly string[];
  readonly plantedBugs: readonly string[];
}

export type ConsumerOptionsInit = Partial<Omit<ConsumerOptions, 'limits' | 'retry' | 'variants'>> & {
  readonly limits?: Partial<ConsumerLimits>;
  readonly retry?: Partial<RetryOptions>;
  readonly variants?: Partial<ConsumerVariants>;
};

export const DEFAULT_CONSUMER_LIMITS: ConsumerLimits = Object.freeze({
  maxInlineResultBytes: 1_048_576,
  maxFileResultBytes: 16 * 1_048_576,
  maxMetadataBytes: 1_048_576,
  maxTools: 256,
  maxTitleChars: 120,
  maxDescriptionChars: 1_000,
  maxMessageChars: 300,
  maxSchemaBytes: 65_536,
  maxSchemaDepth: 32,
});

export const DEFAULT_RETRY: RetryOptions = Object.freeze({
  maxRetries: 4,
  baseBackoffMs: 250,
  maxBackoffMs: 8_000,
  maxRetryAfterMs: 60_000,
  maxRenegotiations: 2,
  maxUserActions: 4,
  maxPolls: 1_000,
  minPollMs: 100,
  maxPollMs: 30_000,
});

export const DEFAULT_CONSUMER_OPTIONS: ConsumerOptions = Object.freeze({
  capabilities: ['async_operations', 'cancellation', 'large_results'],
  callDeadlineMs: 30_000,
  callTimeoutMs: 60_000,
  limits: DEFAULT_CONSUMER_LIMITS,
  retry: DEFAULT_RETRY,
  localApproval: 'none',
  localApprovalMinRisk: 'moderate',
  v1SideEffectTools: [],
  variants: { resendResumeToken: true, refusedToken: 'query', argsBytes: 'exact', retryDeadline: 'fresh' },
  disabledRules: [],
  plantedBugs: [],
} satisfies ConsumerOptions);

/** The consumer's options, resolved once per consumer process. */
export interface ConsumerConfig extends ConsumerOptions {
  readonly gates: ConsumerGates;
  /** The consumer's named parts: the reference ones, or some substituted by planted bugs. */
  readonly parts: ConsumerParts;
  /** This process's one screen: launches for a result take turns (confirmation.ts). */
  readonly screen: ScreenTurns;
}

export function resolveConsumerOptions(init: ConsumerOptionsInit = {}): ConsumerConfig {
  assertConsumerOptions('consumer options', init);
  const base = DEFAULT_CONSUMER_OPTIONS;
  // Object.assign rather than object spreads: same result, without V8's slow path for a spread
  // followed by more properties (Node 20) — a consumer is configured at every process start.
  const options: ConsumerOptions = Object.assign({}, base, init, {
    limits: Object.assign({}, base.limits, init.limits),
    retry: Object.assign({}, base.retry, init.retry),
    variants: Object.assign({}, base.variants, init.variants),
  });
  return Object.assign({}, options, {
    gates: new ConsumerGates(options.disabledRules),
    parts: plantConsumerBugs(REFERENCE_CONSUMER_PARTS, options.plantedBugs),
    screen: new ScreenTurns(),
  });
}

const RISK_ORDER: Readonly<Record<Risk, number>> = { low: 0, moderate: 1, high: 2 };

/** Does a call of a tool with these annotations need the local approval? */
export function needsLocalApproval(config: ConsumerConfig, effect: Effect, risk: Risk): boolean {
  if (config.localApproval === 'none' || effect === 'read') return false;
  return RISK_ORDER[risk] >= RISK_ORDER[config.localApprovalMinRisk];
}
