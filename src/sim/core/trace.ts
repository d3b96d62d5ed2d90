/**
 * The run's trace: every event — Binder transactions and replies, task switches, faults, store
 * commits, UI, fd open/close, process starts and deaths, log warnings — in order, each stamped with
 * the scheduler step and the virtual wall time. Its canonical JSON (RFC 8785) and SHA-256 hash are
 * the determinism contract: same seed, same inputs, same code ⇒ same hash.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { JsonObject } from '../../base/json.ts';

/** android.util.Log priorities, as `log` trace events carry them. */
export type LogLevel = 'V' | 'D' | 'I' | 'W' | 'E';

export interface TraceEvent {
  /** Position in the trace, from 0. */
  readonly seq: number;
  /** Scheduler step during which the event happened. */
  readonly step: number;
  /** Virtual wall time, Unix epoch ms. */
  readonly t: number;
  /** Dotted event kind, e.g. `binder.call`, `process.kill`, `fault`. */
  readonly kind: string;
  /**
   * Event fields. By convention `from`/`to` name the participants of a message (rendered as arrows
   * in Mermaid) and `actor` the participant an event happens at (rendered as a note).
   */
  readonly data: JsonObject;
}

export interface TraceClock {
  step(): number;
  nowMs(): number;
}

export class Trace {
  private readonly list: TraceEvent[] = [];
  private readonly clock: TraceClock;
  /**
   * Called with every event as it is recorded (null: nobody listens). For watching a run that may
   * never finish: the CLI streams the trace of a run that hung, to show it up to its last step.
   */
  onRecord: ((event: TraceEvent) => void) | null = null;

  constructor(clock: TraceClock) {
    this.clock = clock;
  }

  record(kind: string, data: JsonObject = {}): TraceEvent {
    const event: TraceEvent = {
      seq: this.list.length,
      step: this.clock.step(),
      t: this.clock.nowMs(),
      kind,
      data,
    };
    this.list.push(event);
    this.onRecord?.(event);
    return event;
  }

  get events(): readonly TraceEvent[] {
    return this.list;
  }

  get length(): number {
    return this.list.length;
  }

  ofKind(prefix: string): TraceEvent[] {
    return this.list.filter((e) => e.kind === prefix || e.kind.startsWith(`${prefix}.`));
  }

  /** RFC 8785 canonical JSON of the whole trace: the byte string the hash is taken over. */
  canonicalJson(): string {
    return canonicalJsonOf(this.list);
  }

  /** Lowercase hex SHA-256 of the canonical JSON. */
  hash(): string {
    return createHash('sha256').update(this.canonicalJson()).digest('hex');
  }
}

export function canonicalJsonOf(events: readonly TraceEvent[]): string {
  let text: string | undefined;
  try {
    text = canonicalize(events);
  } catch {
    // RFC 8785 refuses lone surrogates, which hostile input puts in traced keys and values (a
    // request_id of '\uD800'): hash them as their escape text instead (traces without any hash as before).
    text = canonicalize(escapeLoneSurrogates(events));
  }
  if (text === undefined) throw new TypeError('trace is not JSON-serialisable');
  return text;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A copy of `value` with every lone surrogate of its strings (and keys) written as `\\uXXXX` text. */
export function escapeLoneSurrogates(value: unknown): unknown {
  if (typeof value === 'string')
    return value.replace(LONE_SURROGATE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(value)) return value.map(escapeLoneSurrogates);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [escapeLoneSurrogates(k) as string, escapeLoneSurrogates(v)]),
    );
  }
  return value;
}

export function hashEvents(events: readonly TraceEvent[]): string {
  return createHash('sha256').update(canonicalJsonOf(events)).digest('hex');
}
