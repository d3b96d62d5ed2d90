/**
 * The consumer's Binder channel to one provider authority (ANDROID-FACTS §1, §2).
 *
 * - It calls through an UNSTABLE ContentProviderClient: if the provider process dies mid-call the
 *   consumer gets DeadObjectException and lives on. ContentResolver.call would hold a stable
 *   reference, and AMS kills every stable client of a dying provider — the consumer would die with
 *   it (planted bug 'consumer-uses-stable-call' walks into exactly that trap).
 * - A dead client stays dead: it is dropped, and the next call acquires a new one (which restarts
 *   the provider process).
 * - Binder has no timeout of its own, so a hung provider would hang the caller. Each call runs on a
 *   helper thread of the consumer process while the caller waits at most `callTimeoutMs`; a reply
 *   that arrives after the caller gave up has its file descriptors closed at once, never leaked.
 * - Every way a call can fail is a value (CallOutcome), never an exception: death, a `null` reply,
 *   a timeout and a Parcel-able exception are all "the outcome is unknown" to the layers above.
 */

import type { AppContext } from '../sim/app/context.ts';
import type { Bundle } from '../sim/binder/bundle.ts';
import { fileDescriptorsIn } from '../sim/binder/parcel.ts';
import type { ContentProviderClient } from '../sim/content/content.ts';
import { IllegalArgumentException, RemoteException, SecurityException } from '../sim/core/errors.ts';
import { TIMED_OUT } from '../sim/core/scheduler.ts';
import type { ConsumerConfig } from './options.ts';

export type CallOutcome =
  | { readonly kind: 'reply'; readonly bundle: Bundle }
  /** A null reply: a provider that returned null, or a RemoteException on the stable path. */
  | { readonly kind: 'null' }
  /** DeadObjectException / TransactionTooLargeException: the provider died or the transaction failed. */
  | { readonly kind: 'dead'; readonly exception: string }
  | { readonly kind: 'timeout' }
  /** The provider could not be acquired at all. */
  | { readonly kind: 'refused'; readonly reason: 'security' | 'unknown_authority' }
  /** A Parcel-able exception thrown by the provider's call(). */
  | { readonly kind: 'exception'; readonly exception: string };

/**
 * Runs `body` on a helper thread of the consumer process and waits for it at most `timeoutMs`. A
 * result that arrives after the wait gave up is handed to `onLate` (to close what it holds). The
 * helper is a daemon: a provider that never answers leaves it blocked without stalling the run.
 */
export async function runWithTimeout<T>(
  context: AppContext,
  label: string,
  timeoutMs: number,
  body: () => Promise<T>,
  onLate: (value: T) => void,
): Promise<T | typeof TIMED_OUT> {
  const waiter = context.waiter<T>(label);
  context.spawn(
    label,
    async () => {
      const value = await body();
      if (!waiter.wake(value)) onLate(value);
    },
    { daemon: true },
  );
  return context.waitFor(waiter, timeoutMs);
}

/** Closes every file descriptor inside a Bundle (idempotent: close() twice is a no-op). */
export function closeFds(bundle: Bundle | null): void {
  for (const fd of fileDescriptorsIn(bundle)) fd.close();
}

export class ProviderChannel {
  private client: ContentProviderClient | null = null;

  constructor(
    private readonly context: AppContext,
    readonly authority: string,
    private readonly config: ConsumerConfig,
  ) {}

  /** One IContentProvider.call; never throws. */
  async call(method: string, extras: Bundle): Promise<CallOutcome> {
    const timeoutMs = this.config.callTimeoutMs;
    if (timeoutMs === null) return this.callOnce(method, extras);
    const result = await runWithTimeout(
      this.context,
      `cetp-call:${method}`,
      timeoutMs,
      () => this.callOnce(method, extras),
      // The caller gave up waiting: nobody will read this reply, so close what it carries.
      (late) => {
        if (late.kind === 'reply') closeFds(late.bundle);
      },
    );
    if (result !== TIMED_OUT) return result;
    this.release();
    return { kind: 'timeout' };
  }

  /** Drops the current client (after a death or a timeout); the next call acquires a new one. */
  release(): void {
    this.client?.close();
    this.client = null;
  }

  private callOnce(method: string, extras: Bundle): Promise<CallOutcome> {
    return this.config.parts.call({
      unstable: () => this.callUnstable(method, extras),
      stable: () => this.callStable(method, extras),
    });
  }

  /** The reference: an unstable client, so a provider's death is a RemoteException, not ours (6-08). */
  private async callUnstable(method: string, extras: Bundle): Promise<CallOutcome> {
    try {
      if (this.client === null) {
        this.client = await this.context.contentResolver.acquireUnstableContentProviderClient(this.authority);
        if (this.client === null) return { kind: 'refused', reason: 'unknown_authority' };
      }
      const client = this.client;
      const reply = await client.call(method, null, extras);
      return reply === null ? { kind: 'null' } : { kind: 'reply', bundle: reply };
    } catch (error) {
      return this.failed(error);
    }
  }

  /** The trap (a planted bug's route): ContentResolver.call holds a stable reference for the call. */
  private async callStable(method: string, extras: Bundle): Promise<CallOutcome> {
    try {
      const reply = await this.context.contentResolver.call(this.authority, method, null, extras);
      return reply === null ? { kind: 'null' } : { kind: 'reply', bundle: reply };
    } catch (error) {
      return this.failed(error);
    }
  }

  private failed(error: unknown): CallOutcome {
    const name = error instanceof Error ? error.name : 'Error';
    if (error instanceof RemoteException) {
      this.release();
      return { kind: 'dead', exception: name };
    }
    if (error instanceof SecurityException && this.client === null) {
      return { kind: 'refused', reason: 'security' };
    }
    if (error instanceof IllegalArgumentException && this.client === null) {
      return { kind: 'refused', reason: 'unknown_authority' };
    }
    return { kind: 'exception', exception: name };
  }
}
