/**
 * One provider authority over Binder, as Android offers it (ContentProviderClient).
 *
 * - An UNSTABLE client: if the provider process dies mid-call we get DeadObjectException and live
 *   on (a stable `ContentResolver.call` would get us killed with it).
 * - Binder has no timeout: each call runs on a helper thread and we wait at most the policy's call timeout;
 *   a reply that comes after we gave up has its file descriptors closed at once (4.5-09).
 * - Every failure is a value, never an exception: death, a null reply and a timeout all mean "the
 *   outcome is unknown" to the layers above (6-08).
 */
import {
  type AppContext,
  type Bundle,
  type ContentProviderClient,
  type ParcelFileDescriptor,
  RemoteException,
  SecurityException,
} from '../../../index.ts';

export type CallResult =
  | { readonly kind: 'reply'; readonly bundle: Bundle }
  /** Died, timed out, null, or a Parcel-able exception: nobody knows whether it landed. */
  | { readonly kind: 'lost'; readonly why: string }
  /** The authority could not be acquired: the call never left. `permanent`: a SecurityException. */
  | { readonly kind: 'refused'; readonly permanent: boolean };

/** Every file descriptor a reply carries. */
export function fdsOf(bundle: Bundle): ParcelFileDescriptor[] {
  const out: ParcelFileDescriptor[] = [];
  for (const key of bundle.keySet()) {
    if (bundle.typeOf(key) !== 'ParcelFileDescriptor') continue;
    const fd = bundle.getParcelFileDescriptor(key);
    if (fd) out.push(fd);
  }
  return out;
}

export function closeAll(bundle: Bundle): void {
  for (const fd of fdsOf(bundle)) fd.close();
}

export class Channel {
  private client: ContentProviderClient | null = null;

  constructor(
    private readonly context: AppContext,
    readonly authority: string,
    private readonly timeoutMs: number,
  ) {}

  async call(method: string, extras: Bundle): Promise<CallResult> {
    const waiter = this.context.waiter<CallResult>(`zoo agent call ${method}`);
    this.context.spawn(
      `zoo-agent-call:${method}`,
      async () => {
        const result = await this.callOnce(method, extras);
        // We stopped waiting: nobody will read this reply, so close what it holds.
        if (!waiter.wake(result) && result.kind === 'reply') closeAll(result.bundle);
      },
      { daemon: true },
    );
    const result = await this.context.waitFor(waiter, this.timeoutMs);
    if (typeof result === 'object' && result !== null && 'kind' in result) return result;
    this.release();
    return { kind: 'lost', why: 'timeout' };
  }

  private async callOnce(method: string, extras: Bundle): Promise<CallResult> {
    try {
      if (this.client === null) {
        this.client = await this.context.contentResolver.acquireUnstableContentProviderClient(this.authority);
        // A provider that could not start in time, or is not installed right now: may come back.
        if (this.client === null) return { kind: 'refused', permanent: false };
      }
      const reply = await this.client.call(method, null, extras);
      // An empty Bundle is what a non-Parcel-able exception in the provider looks like.
      if (reply === null || reply.isEmpty()) return { kind: 'lost', why: 'null' };
      return { kind: 'reply', bundle: reply };
    } catch (error) {
      if (error instanceof RemoteException) this.release();
      else if (this.client === null)
        return { kind: 'refused', permanent: error instanceof SecurityException };
      return { kind: 'lost', why: error instanceof Error ? error.name : 'error' };
    }
  }

  /** A dead client stays dead: drop it, the next call acquires a new one. */
  private release(): void {
    this.client?.close();
    this.client = null;
  }
}
