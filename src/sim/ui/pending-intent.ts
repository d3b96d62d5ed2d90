/**
 * android.app.PendingIntent: a system-held token that lets its holder launch an Intent *as its
 * creator*. What the simulation reproduces (d.a.c PendingIntent; AOSP PendingIntentRecord.Key;
 * ANDROID-FACTS §4):
 *
 * - The creator's UID and package are recorded by the system and cannot be forged; they say who
 *   created the token, not who handed it over.
 * - Identity: asking again with the same (creator, type, requestCode, Intent.filterEquals, flags)
 *   returns the SAME token. Extras are not part of identity: without FLAG_UPDATE_CURRENT the old
 *   extras are kept; with it, the old token's extras are replaced (for every holder). This is the
 *   token-identity trap for apps that encode per-request data in extras.
 * - Target SDK ≥ 31 must pass exactly one of FLAG_IMMUTABLE / FLAG_MUTABLE (IllegalArgumentException);
 *   target ≥ 34 may not create a mutable PendingIntent with an implicit Intent unless
 *   FLAG_NO_CREATE or FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT is set.
 * - Intents carrying file descriptors are rejected ("File descriptors passed in Intent").
 * - A mutable token's unset fields can be filled in by whoever sends it (Intent.fillIn), and an
 *   implicit one resolves to whatever activity matches — both let another app hijack it.
 * - Tokens outlive the creator's process; only the creator's UID can cancel one.
 */
import { IllegalArgumentException, SecurityException, SimUsageError } from '../core/errors.ts';
import type { ComponentName } from './component-name.ts';
import type { Intent } from './intent.ts';
import {
  FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT,
  FLAG_CANCEL_CURRENT,
  FLAG_IMMUTABLE,
  FLAG_MUTABLE,
  FLAG_NO_CREATE,
  FLAG_UPDATE_CURRENT,
  PendingIntent,
  type PendingIntentFlags,
} from './pending-intent-token.ts';

export {
  FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT,
  FLAG_CANCEL_CURRENT,
  FLAG_IMMUTABLE,
  FLAG_MUTABLE,
  FLAG_NO_CREATE,
  FLAG_ONE_SHOT,
  FLAG_UPDATE_CURRENT,
  PendingIntent,
  type PendingIntentFlags,
} from './pending-intent-token.ts';

const NOT_IN_KEY = FLAG_NO_CREATE | FLAG_CANCEL_CURRENT | FLAG_UPDATE_CURRENT;

/** The system's record behind a token (PendingIntentRecord). */
export class PendingIntentRecord {
  canceled = false;
  /** The creator's target SDK and its ActivityOptions#setPendingIntentCreatorBackgroundActivityStartMode. */
  creatorTargetSdk = 34;
  creatorAllowsBackgroundStart = false;
  constructor(
    readonly id: number,
    readonly key: string,
    readonly creatorUid: number,
    readonly creatorPackage: string,
    readonly requestCode: number,
    /** The base Intent; its extras may be replaced by FLAG_UPDATE_CURRENT. */
    readonly intent: Intent,
    readonly flags: number,
  ) {}
}

export interface PendingIntentRequest {
  readonly creatorUid: number;
  readonly creatorPackage: string;
  readonly targetSdk: number;
  readonly requestCode: number;
  readonly intent: Intent;
  readonly flags: PendingIntentFlags;
  /** The creator's ActivityOptions: MODE_BACKGROUND_ACTIVITY_START_ALLOWED lends it BAL rights (API 34+). */
  readonly creatorAllowsBackgroundStart?: boolean;
}

/** The system-wide token table (lives in the world, survives every app process). */
export class PendingIntentRegistry {
  private readonly records = new Map<string, PendingIntentRecord>();
  private nextId = 1;

  /** PendingIntent.getActivity semantics; returns the record, or null for FLAG_NO_CREATE misses. */
  getActivity(req: PendingIntentRequest): PendingIntentRecord | null {
    const { flags, intent } = req;
    const immutable = (flags & FLAG_IMMUTABLE) !== 0;
    const mutable = (flags & FLAG_MUTABLE) !== 0;
    if (immutable && mutable) {
      throw new IllegalArgumentException('Cannot set both FLAG_IMMUTABLE and FLAG_MUTABLE for PendingIntent');
    }
    if (req.targetSdk >= 31 && !immutable && !mutable) {
      throw new IllegalArgumentException(
        `${req.creatorPackage}: Targeting S+ (version 31 and above) requires that one of FLAG_IMMUTABLE or FLAG_MUTABLE be specified when creating a PendingIntent.`,
      );
    }
    const implicit = intent.component === null && intent.package === null;
    if (
      req.targetSdk >= 34 &&
      mutable &&
      implicit &&
      (flags & (FLAG_NO_CREATE | FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT)) === 0
    ) {
      throw new IllegalArgumentException(
        `${req.creatorPackage}: Targeting U+ (version 34 and above) disallows creating or retrieving a PendingIntent with FLAG_MUTABLE, an implicit Intent within and without FLAG_NO_CREATE and FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT for security reasons.`,
      );
    }
    if (intent.hasFileDescriptors()) throw new IllegalArgumentException('File descriptors passed in Intent');
    const key = JSON.stringify([
      req.creatorUid,
      req.creatorPackage,
      'activity',
      req.requestCode,
      intent.filterKey(),
      flags & ~NOT_IN_KEY,
    ]);
    let existing = this.records.get(key);
    if (existing && (flags & FLAG_CANCEL_CURRENT) !== 0) {
      existing.canceled = true;
      this.records.delete(key);
      existing = undefined;
    }
    if (existing) {
      if ((flags & FLAG_UPDATE_CURRENT) !== 0) {
        existing.intent.extras.clear();
        existing.intent.extras.putAll(intent.extras);
      }
      return existing;
    }
    if ((flags & FLAG_NO_CREATE) !== 0) return null;
    const record = new PendingIntentRecord(
      this.nextId++,
      key,
      req.creatorUid,
      req.creatorPackage,
      req.requestCode,
      intent.clone(),
      flags & ~NOT_IN_KEY,
    );
    record.creatorTargetSdk = req.targetSdk;
    record.creatorAllowsBackgroundStart = req.creatorAllowsBackgroundStart ?? false;
    this.records.set(key, record);
    return record;
  }

  /** The holder's token on `record`; `resolve` resolves an Intent for a sender (the ActivityManager's). */
  token(
    record: PendingIntentRecord,
    resolve: (intent: Intent, creatorUid: number) => ComponentName[],
  ): PendingIntent {
    return new PendingIntent(record, () => resolve(record.intent, record.creatorUid));
  }

  /** The system's record behind `token` (only the system makes tokens: token()). */
  recordOf(token: PendingIntent): PendingIntentRecord {
    if (!(token.record instanceof PendingIntentRecord))
      throw new SimUsageError(`${token}: not a system token`);
    return token.record;
  }

  /** PendingIntent.cancel(): only the creator's UID may cancel. */
  cancel(record: PendingIntentRecord, callerUid: number): void {
    if (callerUid !== record.creatorUid && callerUid !== 1000) {
      throw new SecurityException(
        `uid ${callerUid} cannot cancel a PendingIntent of uid ${record.creatorUid}`,
      );
    }
    record.canceled = true;
    if (this.records.get(record.key) === record) this.records.delete(record.key);
  }

  /** A reboot: every token is gone (PendingIntents live in system_server's memory only). */
  clear(): void {
    for (const r of this.records.values()) r.canceled = true;
    this.records.clear();
  }

  /** Tokens of a removed package die with it (with `uid`: its tokens of that user only). */
  removePackage(packageName: string, uid?: number): void {
    for (const [key, r] of this.records) {
      if (r.creatorPackage === packageName && (uid === undefined || r.creatorUid === uid)) {
        r.canceled = true;
        this.records.delete(key);
      }
    }
  }

  get size(): number {
    return this.records.size;
  }
}
