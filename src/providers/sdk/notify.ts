/**
 * Change notifications for operations: when an asynchronous operation reaches a terminal state the
 * SDK calls ContentResolver.notifyChange(content://<authority>/operations/<operation_id>), the
 * Android convention for "this row changed". CETP does not require it (consumers poll
 * get_operation, §4.4); a consumer may observe the URI to poll sooner. On Android the observers'
 * onChange is a oneway Binder call from system_server (IContentObserver.aidl): the provider never
 * waits for, or hears from, an observer (src/sim/content/content-observer.ts).
 */
import { CETP_PROVIDER } from './manifest.ts';
import type { Runtime } from './runtime.ts';

/** The URI an operation's change notification carries. */
export function operationUri(authority: string, operationId: string): string {
  return `content://${authority}/operations/${encodeURIComponent(operationId)}`;
}

/** The authority under which the SDK's provider is published (its first), or null. */
export function ownAuthority(rt: Runtime): string | null {
  const pkg = rt.context.packageManager.getPackageInfo(rt.context.packageName);
  return pkg?.manifest.providers.find((p) => p.name === CETP_PROVIDER)?.authorities[0] ?? null;
}

export function notifyOperationChanged(rt: Runtime, operationId: string): void {
  const authority = ownAuthority(rt);
  if (authority === null) return;
  try {
    rt.context.contentResolver.notifyChange(operationUri(authority, operationId));
  } catch (error) {
    rt.context.log('W', 'CetpProvider', `notifyChange for ${operationId} failed: ${String(error)}`);
  }
}
