/**
 * ContentResolver.registerContentObserver / notifyChange: the slice's oneway Binder traffic.
 *
 * - notifyChange(uri) is a call into system_server's ContentService
 *   (services/core/java/com/android/server/content/ContentService.java `notifyChange`), which
 *   collects the matching observers (ObserverNode.collectObserversLocked) and calls each one's
 *   IContentObserver.onChange — a **oneway** method (core/java/android/database/IContentObserver.aidl)
 *   — from system_server. The notifier never waits for an observer, never sees its exceptions;
 *   an observer whose process is dead is dropped (ContentService catches the RemoteException:
 *   "Found dead observer, removing"; its linkToDeath does the same).
 * - The observer's onChange runs on a Binder thread of its own process (ContentObserver.Transport →
 *   dispatchChange with a null Handler) with the system's UID and getCallingPid() == 0 (oneway).
 *   Notifications to one observer (one binder node) arrive one at a time in the order sent
 *   (binder.ts `sendOneway`).
 * - Matching (ObserverNode): an observer of U is notified of a change to U; of a change to a
 *   descendant of U only if it registered with notifyForDescendants; and of a change to an
 *   ancestor of U always (a notification reaches every observer below its node).
 * - Registration: since Android 8 (target 26+) registering for, or notifying, an authority the
 *   caller cannot resolve throws SecurityException ("Failed to find provider … for user"); the
 *   permission gate of acquisition applies as well (ContentService
 *   `checkContentProviderAccess`). An observer in the notifier's own process is still called
 *   through the system (oneway), not directly; the notifier's own observer is skipped unless it
 *   delivers self-notifications (`deliverSelfNotifications`).
 * Not modelled: observer Handlers (delivery on a Looper), multi-user, notify flags other than the
 * default, the sync-adapter side (`syncToNetwork`).
 */

import { caches } from '../../base/caches.ts';
import type { BinderDriver } from '../binder/binder.ts';
import { INT_SIZE, string16Size } from '../binder/parcel.ts';
import { SecurityException } from '../core/errors.ts';
import type { Trace } from '../core/trace.ts';
import type { PackageManager } from '../pm/package-manager.ts';
import type { ProcessRecord } from '../process/process.ts';
import type { ContentCaller } from './types.ts';

/** What ContentService's observer tree needs of the world, passed in (the World implements it). */
export interface ObserverHost {
  readonly trace: Trace;
  readonly binder: Pick<BinderDriver, 'sendOneway'>;
  readonly pm: Pick<PackageManager, 'resolveContentProvider' | 'checkPermission'>;
}

/** android.database.ContentObserver, constructed with a null Handler: onChange runs on a Binder thread. */
export interface ContentObserver {
  onChange(selfChange: boolean, uri: string): void | Promise<void>;
  /** ContentObserver.deliverSelfNotifications(): false unless overridden. */
  deliverSelfNotifications?(): boolean;
}

interface Registration {
  readonly id: number;
  readonly segments: readonly string[];
  readonly descendants: boolean;
  readonly observer: ContentObserver;
  readonly process: ProcessRecord;
  readonly pid: number;
}

/** system_server as a sender (its pid is some live pid; the oneway send hides it from the callee). */
const SYSTEM_SERVER_PID = 1000;
const SYSTEM_IDENTITY = {
  uid: 1000,
  pid: SYSTEM_SERVER_PID,
  packageName: 'android',
  attributionTag: null,
} as const;

/**
 * A URI's segments, by URI: every run registers and notifies the same few URIs, and each change was
 * split again (issue 37). The arrays are frozen: registrations share them.
 */
const segmentsByUri = caches.memo<string, readonly string[] | null>(
  'sim/content-observer: URI segments',
  1_024,
);

/** content://authority/a/b → [authority, a, b]; null when not a content URI with an authority. */
export function uriSegments(uri: string): readonly string[] | null {
  return segmentsByUri.get(uri, splitUri);
}

function splitUri(uri: string): readonly string[] | null {
  const match = /^content:\/\/([^/?#]+)([^?#]*)/.exec(uri);
  if (!match?.[1]) return null;
  return Object.freeze([match[1], ...(match[2] ?? '').split('/').filter((s) => s.length > 0)]);
}

/** Whether an observer of `observed` (with `descendants`) is notified of a change to `changed`. */
export function observerMatches(
  observed: readonly string[],
  descendants: boolean,
  changed: readonly string[],
): boolean {
  const common = Math.min(observed.length, changed.length);
  for (let i = 0; i < common; i++) if (observed[i] !== changed[i]) return false;
  if (changed.length <= observed.length) return true; // the same node, or an ancestor's change
  return descendants;
}

/** ContentService's observer tree, one per World (`World.observers`). */
export class ObserverRegistry {
  private nextId = 1;
  private registrations: Registration[] = [];

  constructor(private readonly world: ObserverHost) {}

  register(caller: ContentCaller, uri: string, descendants: boolean, observer: ContentObserver): void {
    const segments = this.checkAccess(caller, uri);
    this.registrations = this.registrations.filter((r) => r.observer !== observer);
    this.registrations.push({
      id: this.nextId++,
      segments,
      descendants,
      observer,
      process: caller.process,
      pid: caller.pid,
    });
    this.world.trace.record('content.observe', { from: caller.packageName, to: 'system', uri, descendants });
  }

  unregister(observer: ContentObserver): void {
    this.registrations = this.registrations.filter((r) => r.observer !== observer);
  }

  /** ContentService.notifyChange: one oneway onChange per matching live observer, in registration order. */
  notifyChange(caller: ContentCaller, uri: string, originator: ContentObserver | null): void {
    const changed = this.checkAccess(caller, uri);
    this.world.trace.record('content.notify', { from: caller.packageName, to: 'system', uri });
    const bytes = 4 * INT_SIZE + string16Size('android.database.IContentObserver') + string16Size(uri);
    for (const r of [...this.registrations]) {
      if (!observerMatches(r.segments, r.descendants, changed)) continue;
      if (r.observer === originator && !(r.observer.deliverSelfNotifications?.() ?? false)) continue;
      const selfChange = r.observer === originator;
      const sent = this.world.binder.sendOneway(
        'system',
        r.process,
        r.pid,
        `observer#${r.id}`,
        'onChange',
        bytes,
        SYSTEM_IDENTITY,
        {
          invoke() {
            return r.observer.onChange(selfChange, uri);
          },
        },
      );
      // "Found dead observer, removing" (a RemoteException on the oneway send): a dead process
      // instance's registrations go, as its linkToDeath would have removed them.
      if (sent === 'dead') this.registrations = this.registrations.filter((x) => x !== r);
    }
  }

  private checkAccess(caller: ContentCaller, uri: string): readonly string[] {
    const segments = uriSegments(uri);
    const authority = segments?.[0];
    const info = authority === undefined ? null : this.world.pm.resolveContentProvider(caller.uid, authority);
    if (!segments || !info)
      throw new SecurityException(`Failed to find provider ${authority ?? uri} for user 0`);
    if (info.uid !== caller.uid) {
      const perms = [info.readPermission, info.writePermission].filter(
        (p): p is string => typeof p === 'string',
      );
      if (
        info.exported === false ||
        (perms.length > 0 && !perms.some((p) => this.world.pm.checkPermission(p, caller.uid)))
      )
        throw new SecurityException(`Permission Denial: ${caller.packageName} cannot access ${uri}`);
    }
    return segments;
  }
}
