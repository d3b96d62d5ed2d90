/**
 * The consumer's switchable readings of ambiguous spec points that shape what an execution re-sends
 * (src/protocol/readings.ts lists them with the notes and rule ids that allow each). The reference
 * readings (`exact`, `fresh`) leave the request as the client wrote it.
 */
import canonicalize from 'canonicalize';
import type { Bundle } from '../sim/binder/bundle.ts';
import type { ConsumerVariants } from './options.ts';

/** What one execution re-sends under its readings: the args string and the first deadline it sent. */
export class ResendReadings {
  private sent = 0;
  private firstDeadline: number | null = null;

  constructor(
    private readonly variants: ConsumerVariants,
    /** Whether the execution starts as a re-send (a journaled execution resumed after a restart). */
    private readonly startsResent: boolean,
  ) {}

  /**
   * The args of this send (NOTES 6): the execution's own bytes, or — `reserialize`, for every
   * re-send — the same JSON value serialised anew (keys sorted, RFC 8785), as an SDK that keeps args
   * as a parsed object does.
   */
  args(exact: string): string {
    const resend = this.sent > 0 || this.startsResent;
    if (!resend || this.variants.argsBytes !== 'reserialize') return exact;
    try {
      return canonicalize(JSON.parse(exact)) ?? exact;
    } catch {
      return exact;
    }
  }

  /**
   * NOTES 2: after a re-sent resume token was refused (INVALID_REQUEST), `query` asks once more with
   * the same request_id and no token; `give-up` takes retryable=false at its word (5-26).
   */
  queriesAfterRefusedToken(): boolean {
    return this.variants.refusedToken === 'query';
  }

  /**
   * After the client wrote a send's envelope (NOTES 5): `original` puts the execution's first
   * deadline_at_ms back on every re-send. Counts the send.
   */
  deadline(extras: Bundle): void {
    const written = extras.getLong('deadline_at_ms', 0);
    if (this.firstDeadline === null) this.firstDeadline = written;
    else if (this.variants.retryDeadline === 'original') extras.putLong('deadline_at_ms', this.firstDeadline);
    this.sent += 1;
  }
}
