/**
 * The agent's cancellation token: raised from any task, it wakes an execution waiting between
 * polls. Cancelling is a request, never an outcome (4.4-19): only the provider's state=cancelled is.
 */
import type { AppContext } from '../../../index.ts';

export class Cancellation {
  private raised = false;
  private readonly sleepers = new Set<(v: undefined) => boolean>();

  get requested(): boolean {
    return this.raised;
  }

  cancel(): void {
    this.raised = true;
    for (const wake of this.sleepers) wake(undefined);
    this.sleepers.clear();
  }

  /** Sleeps `ms`, or less if cancellation is asked for meanwhile. */
  async sleep(context: AppContext, ms: number): Promise<void> {
    if (this.raised) return context.sleep(ms);
    const waiter = context.waiter<undefined>('zoo agent poll or cancel');
    const wake = (v: undefined) => waiter.wake(v);
    this.sleepers.add(wake);
    await context.waitFor(waiter, ms);
    this.sleepers.delete(wake);
  }
}
